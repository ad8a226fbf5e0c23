import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything that can go wrong with a request, as one thrown type.
///
/// Descriptions say what happened and what to do; they never contain header values, bodies or query strings,
/// so they are safe to log.
public enum SimpleNetworkingError: Error, Sendable {
    /// The base URL and path, or an absolute URL, do not form a usable `http` or `https` URL: for example a path
    /// that names another origin or climbs above the base path, or user info in the URL. Nothing reached the
    /// network.
    case invalidURL(reason: String)
    /// The request cannot be sent as built: a bad header, a framing header such as `Content-Length`, a bad method,
    /// or a body that cannot be sent (a JSON encoding failure, an unreadable file). Nothing reached the network.
    case invalidRequest(reason: String)
    /// No complete response arrived: cannot connect, host not found, timed out, connection lost, TLS failure, a
    /// response that is not valid HTTP. The failure's ``TransportFailure/category`` is the same whatever the
    /// transport; its ``TransportFailure/underlying`` error is the platform's. `attempts` is the history when the
    /// client retried first (see ``RetryPolicy``).
    case transportFailed(TransportFailure, attempts: [RequestAttempt] = [])
    /// A response arrived with a status outside 2xx and no status handler stopped the chain, or with a 2xx status
    /// outside the statuses the request accepts (``SimpleRequest/validate(statusCode:)``).
    case unacceptableStatus(SimpleResponse)
    /// A 2xx response with a body arrived whose `Content-Type` is not one the request accepts
    /// (``SimpleRequest/validate(contentType:)``), or that has none; `acceptable` are the types it accepts. It
    /// reaches the error handlers as a status outside 2xx does, and nothing is decoded.
    case unacceptableContentType(SimpleResponse, acceptable: [MediaType])
    /// A response arrived with a status outside 2xx, and its body decoded into the app's own error type that the
    /// request named (``SimpleRequest/decodingErrors(_:decoder:)``, ``Endpoint/ErrorBody``): `body` is that value,
    /// such as the API's `{"error": ...}`; read it with ``errorBody(as:)`` or `catch .errorBody(let body as
    /// APIError, _)`. A body that does not decode gives ``unacceptableStatus(_:)`` instead.
    case errorBody(_ body: any Sendable, response: SimpleResponse)
    /// The body could not be decoded into `type`.
    case decodingFailed(type: String, reason: String, response: SimpleResponse?)
    /// The request's transform step (``SimpleRequest/transform(_:)``, an endpoint's ``Endpoint/decode(_:decoder:)``)
    /// threw `underlying`, an error of its own rather than a ``SimpleNetworkingError`` (which arrives as it is).
    case transformFailed(underlying: any Error, response: SimpleResponse)
    /// The request was cancelled, by ``SimpleRequest/cancel()`` or by cancelling the awaiting task.
    case cancelled
    /// `retry` was asked for more often than the request's retry limit allows.
    case retryLimitExceeded(attempts: Int, response: SimpleResponse?)
    /// A status handler returned `false` without asking for a retry, so the request ended there.
    case stoppedByHandler(SimpleResponse)
    /// The request is already running; wait for it or cancel it before running it again.
    case requestInProgress
    /// The response body passed `limit` bytes (after decompression), so the transfer was cancelled.
    case responseTooLarge(limit: Int)
    /// A redirect was not followed: the redirect policy refused it, it went from https to http, it formed a loop, or
    /// its `Location` was unusable.
    case redirectRefused(reason: String)
    /// More than `limit` redirects in one attempt.
    case tooManyRedirects(limit: Int)
    /// Re-authentication failed, or was refused by the refresh limit; every request waiting for it gets this.
    case authenticationFailed(reason: String, underlying: (any Error)?)
    /// The overall deadline passed before the request could complete, across all its attempts.
    case deadlineExceeded(seconds: TimeInterval, attempts: [RequestAttempt])
    /// A download's file could not be created, written or moved into place; `reason` names the file (not its
    /// directory) and what failed. Nothing is left at the destination.
    case fileFailed(reason: String)
    /// The reader of a response stream fell more than `limit` bytes behind the network, so the transfer was stopped:
    /// the transport cannot pause a transfer (URLSession on Linux cannot), and the library does not hold more than
    /// `limit` in memory. Read faster, pass a larger buffer, or use a transport that pauses.
    case streamBufferFull(limit: Int)
    /// A line of an event stream, or the data of one of its events, passed `limit` bytes, so the stream was stopped
    /// rather than held in memory. Raise the maximum event size if the server's events are expected to be this large.
    case eventTooLarge(limit: Int)
    /// A 2xx response to an event stream's request was not a `text/event-stream`, so the stream stopped without
    /// reading its body and without reconnecting; the response carries its status and headers. A 204 No Content,
    /// the server's way to say it has no more events, is not thrown: it ends the stream normally.
    case notAnEventStream(SimpleResponse)
    /// An event stream's connection sent nothing for `seconds` (the idle timeout of ``EventStreamOptions``) and the
    /// stream does not reconnect, so it stopped.
    case eventStreamIdle(seconds: TimeInterval)
    /// The client's transport cannot do what the request needs: stream a download, a response stream, an upload from
    /// a file or progress (see ``HTTPTransport/capabilities``), or send a request of this shape (URLSession on Linux
    /// cannot send to an IPv6 literal host, nor a body on GET or HEAD). `reason` names the transport. Nothing reached
    /// the network; use another transport, or change the request.
    case unsupportedByTransport(reason: String)

    /// The response involved, when one arrived.
    public var response: SimpleResponse? {
        switch self {
        case .unacceptableStatus(let response), .stoppedByHandler(let response), .notAnEventStream(let response):
            return response
        case .unacceptableContentType(let response, _):
            return response
        case .errorBody(_, let response), .transformFailed(_, let response):
            return response
        case .decodingFailed(_, _, let response), .retryLimitExceeded(_, let response):
            return response
        case .invalidURL, .invalidRequest, .transportFailed, .cancelled, .requestInProgress, .authenticationFailed,
            .deadlineExceeded:
            return nil
        case .responseTooLarge, .redirectRefused, .tooManyRedirects, .fileFailed, .streamBufferFull, .eventTooLarge,
            .eventStreamIdle, .unsupportedByTransport:
            return nil
        }
    }

    /// The error body of ``errorBody(_:response:)`` as `type`, or `nil` for another case or another type.
    ///
    /// ```swift
    /// if let apiError = error.errorBody(as: APIError.self) { print(apiError.error) }
    /// ```
    /// - Parameter type: The app's error type, as given to ``SimpleRequest/decodingErrors(_:decoder:)``.
    /// - Returns: The decoded error body, or `nil`.
    public func errorBody<Body>(as type: Body.Type = Body.self) -> Body? {
        if case .errorBody(let body, _) = self { return body as? Body }
        return nil
    }

    /// The HTTP status code of ``response``, when one arrived.
    public var statusCode: Int? { response?.statusCode }

    /// The failure of the transport, when no complete response arrived.
    public var transportFailure: TransportFailure? {
        if case .transportFailed(let failure, _) = self { return failure }
        return nil
    }

    /// The underlying `URLError` of a transport failure, when the transport is URLSession.
    public var urlError: URLError? { transportFailure?.urlError }

    /// The attempts made before the request ended, when it was sent at all.
    ///
    /// Errors with a response read it from ``SimpleResponse/attempts``; a cancelled request's history is on
    /// ``SimpleRequest/attempts``.
    public var attempts: [RequestAttempt] {
        switch self {
        case .transportFailed(_, let attempts), .deadlineExceeded(_, let attempts):
            return attempts
        default:
            return response?.attempts ?? []
        }
    }

    /// This error with `history` attached where the case carries one.
    func withAttempts(_ history: [RequestAttempt]) -> SimpleNetworkingError {
        switch self {
        case .transportFailed(let error, _): return .transportFailed(error, attempts: history)
        case .deadlineExceeded(let seconds, _): return .deadlineExceeded(seconds: seconds, attempts: history)
        default: return self
        }
    }

    /// Whether the failure is a timeout.
    public var isTimeout: Bool { transportFailure?.category == .timedOut }
}

extension SimpleNetworkingError: CustomStringConvertible, LocalizedError {
    /// A sentence a person can act on, free of secrets.
    public var description: String {
        switch self {
        case .invalidURL(let reason):
            return "Invalid URL: \(reason)."
        case .invalidRequest(let reason):
            return "Invalid request, nothing was sent: \(reason)."
        case .transportFailed(let failure, _):
            return "The request failed before a complete response arrived: \(failure)."
        case .unacceptableStatus(let response):
            return "The server answered \(Self.describe(status: response.statusCode))\(Self.where(response))."
        case .unacceptableContentType(let response, let acceptable):
            return "The \(Self.describe(status: response.statusCode)) response\(Self.where(response)) has "
                + "\(Self.describeContentType(of: response)), not one the request accepts ("
                + acceptable.map(\.rawValue).joined(separator: ", ") + ")."
        case .errorBody(let body, let response):
            return "The server answered \(Self.describe(status: response.statusCode))\(Self.where(response)) with an "
                + "error body of type \(type(of: body))."
        case .decodingFailed(let type, let reason, _):
            return "Could not decode \(type): \(reason)."
        case .transformFailed(let underlying, _):
            return "The transform step threw an error of type \(type(of: underlying)); read it from `underlying`."
        case .cancelled:
            return "The request was cancelled."
        case .retryLimitExceeded(let attempts, _):
            return "Gave up after \(attempts) attempts: the retry limit was reached."
        case .stoppedByHandler(let response):
            return "A handler for status \(response.statusCode) stopped the request without retrying it."
        case .requestInProgress:
            return "The request is already running; wait for it to finish or cancel it first."
        case .responseTooLarge(let limit):
            return "The response body passed the size limit of \(limit) bytes, so the transfer was stopped; "
                + "raise maximumResponseBodySize if the response is expected to be this large."
        case .redirectRefused(let reason):
            return "A redirect was not followed: \(reason)."
        case .tooManyRedirects(let limit):
            return "Stopped after \(limit) redirects: the redirect limit was reached."
        case .authenticationFailed(let reason, _):
            return "Re-authentication failed: \(reason)."
        case .deadlineExceeded(let seconds, let attempts):
            return "The request did not complete within its \(DurationText.describe(seconds)) deadline "
                + "(\(attempts.count) attempts)."
        case .fileFailed(let reason):
            return "The download's file failed: \(reason)."
        case .streamBufferFull(let limit):
            return "The response stream's reader fell more than \(limit) bytes behind the network, so the transfer "
                + "was stopped; read faster, or pass a larger bufferSize."
        case .eventTooLarge(let limit):
            return "An event stream's line or event data passed the size limit of \(limit) bytes, so the stream was "
                + "stopped; raise the maximum event size if the server's events are expected to be this large."
        case .notAnEventStream(let response) where response.statusCode == 204:
            return "The server answered 204 No Content\(Self.where(response)) to the event stream's request: it has "
                + "no more events, so the stream stopped without reconnecting."
        case .notAnEventStream(let response):
            return "The \(Self.describe(status: response.statusCode)) response\(Self.where(response)) is not "
                + "text/event-stream, so the event stream stopped; check the URL and the server's Content-Type."
        case .eventStreamIdle(let seconds):
            return "The event stream's connection sent nothing for \(DurationText.describe(seconds)), so the stream "
                + "stopped; raise its idle timeout, or let it reconnect."
        case .unsupportedByTransport(let reason):
            return "The transport cannot send this request, nothing was sent: \(reason)."
        }
    }

    /// The same text as ``description``.
    public var errorDescription: String? { description }

    private static func describe(status: Int) -> String {
        let reason = HTTPURLResponse.localizedString(forStatusCode: status)
        return reason.isEmpty ? "\(status)" : "\(status) (\(reason))"
    }

    /// "Content-Type text/html", its media type only (no parameter) when it is a plain token pair, or "no
    /// Content-Type".
    private static func describeContentType(of response: SimpleResponse) -> String {
        guard let value = response.headers["Content-Type"] else { return "no Content-Type" }
        let essence = ResponseValidation.essence(of: value)
        let printable = essence.utf8.allSatisfy { byte in
            (0x21...0x7E).contains(byte) && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
        }
        let plain = essence.count <= 100 && printable
        return plain ? "Content-Type \(essence)" : "an unreadable Content-Type"
    }

    /// " for /path" without query or credentials, when the URL is known.
    private static func `where`(_ response: SimpleResponse) -> String {
        guard let url = response.url, let host = url.host else { return "" }
        return " for \(host)\(url.path.isEmpty ? "/" : url.path)"
    }
}

extension SimpleNetworkingError: CustomReflectable {
    /// The case's name with its ``description``, so that `dump(error)` and debuggers show no more than the
    /// description does: a response carried by the error keeps its URL's query, its headers and its body, which may
    /// hold credentials. The values themselves stay available through ``response``, ``attempts`` and pattern matching.
    public var customMirror: Mirror {
        Mirror(self, children: [(label: caseName, value: description)], displayStyle: .enum)
    }

    /// The name of the case, for ``customMirror`` (package-wide, so tests compare cases by name).
    package var caseName: String {
        switch self {
        case .invalidURL: "invalidURL"
        case .invalidRequest: "invalidRequest"
        case .transportFailed: "transportFailed"
        case .unacceptableStatus: "unacceptableStatus"
        case .unacceptableContentType: "unacceptableContentType"
        case .errorBody: "errorBody"
        case .decodingFailed: "decodingFailed"
        case .transformFailed: "transformFailed"
        case .cancelled: "cancelled"
        case .retryLimitExceeded: "retryLimitExceeded"
        case .stoppedByHandler: "stoppedByHandler"
        case .requestInProgress: "requestInProgress"
        case .responseTooLarge: "responseTooLarge"
        case .redirectRefused: "redirectRefused"
        case .tooManyRedirects: "tooManyRedirects"
        case .authenticationFailed: "authenticationFailed"
        case .deadlineExceeded: "deadlineExceeded"
        case .fileFailed: "fileFailed"
        case .streamBufferFull: "streamBufferFull"
        case .eventTooLarge: "eventTooLarge"
        case .notAnEventStream: "notAnEventStream"
        case .eventStreamIdle: "eventStreamIdle"
        case .unsupportedByTransport: "unsupportedByTransport"
        }
    }
}
