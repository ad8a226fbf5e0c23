import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a transport got no complete response, as a category every transport reports the same way, with the
/// platform's own error kept as ``underlying``.
///
/// The retry policy decides on ``category``, so a transport that is not URLSession drives retries the same way.
public struct TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, independent of the HTTP engine.
    public enum Category: Sendable, Hashable, CaseIterable {
        /// No connection could be made (refused, unreachable): nothing reached the server.
        case cannotConnect
        /// The host name could not be resolved: nothing reached the server.
        case hostNotFound
        /// The attempt's time ran out.
        case timedOut
        /// The connection was lost after the request may have reached the server.
        case connectionLost
        /// The secure connection could not be established.
        case tlsFailure
        /// The server's answer is not valid HTTP, or it closed the connection without one.
        case badServerResponse
        /// The request was cancelled.
        case cancelled
        /// Anything else.
        case other
    }

    /// What went wrong.
    public var category: Category
    /// The platform's error, such as a `URLError`, with secrets already removed from any URL it holds.
    public var underlying: (any Error & Sendable)?
    /// What says more than the category: a phrase of the library's (what was malformed in a response, which TLS
    /// check failed), and over URLSession on Linux libcurl's own message after `libcurl:`, which may name the host and
    /// port but never credentials. Never text from the request's headers or body, nor from the response.
    public var detail: String?

    /// Creates a failure.
    /// - Parameters:
    ///   - category: What went wrong.
    ///   - underlying: The platform's error. Default: none.
    ///   - detail: The library's own phrase that says more. Default: none.
    public init(_ category: Category, underlying: (any Error & Sendable)? = nil, detail: String? = nil) {
        self.category = category
        self.underlying = underlying
        self.detail = detail
    }

    /// The failure a `URLError` stands for, keeping it as the underlying error.
    /// - Parameter error: The error URLSession reported.
    public init(_ error: URLError) {
        self.init(Self.category(of: error.code), underlying: error, detail: error.userInfo[Self.detailKey] as? String)
    }

    /// The `userInfo` key under which the URLSession transport passes the library's own detail for a failure, such
    /// as what was malformed in a response, to ``init(_:)-(URLError)``; never anything from the request or response.
    static let detailKey = "SimpleNetworkingDetail"

    /// The underlying error when it is a `URLError`, as URLSession reports it.
    public var urlError: URLError? { underlying as? URLError }

    /// The category of a `URLError` code.
    static func category(of code: URLError.Code) -> Category {
        switch code {
        case .cannotConnectToHost, .notConnectedToInternet: return .cannotConnect
        case .cannotFindHost, .dnsLookupFailed: return .hostNotFound
        case .timedOut: return .timedOut
        case .networkConnectionLost: return .connectionLost
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
            .clientCertificateRequired:
            return .tlsFailure
        case .badServerResponse, .cannotParseResponse, .unsupportedURL, .zeroByteResource:
            return .badServerResponse
        case .cancelled: return .cancelled
        default: return .other
        }
    }

    /// The library's phrase for the category, with ``detail`` when there is one.
    public var description: String {
        let phrase: String
        switch category {
        case .cannotConnect: phrase = "could not connect to the server (is it running, is the port right?)"
        case .hostNotFound: phrase = "the host name could not be resolved"
        case .timedOut: phrase = "the request timed out"
        case .connectionLost: phrase = "the connection was lost before the response was complete"
        case .tlsFailure: phrase = "the secure connection could not be established (check the server's certificate)"
        case .badServerResponse:
            phrase = "the server's response is not valid HTTP, or the server closed the connection without answering"
        case .cancelled: phrase = "the request was cancelled"
        case .other:
            phrase = urlError.map { "the request failed (URLError \($0.code.rawValue))" } ?? "the request failed"
        }
        guard let detail else { return phrase }
        return phrase + ": " + detail
    }

    /// Whether two failures have the same category and detail; the underlying errors are not compared.
    public static func == (lhs: TransportFailure, rhs: TransportFailure) -> Bool {
        lhs.category == rhs.category && lhs.detail == rhs.detail
    }

    /// Hashes the category and detail, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(category)
        hasher.combine(detail)
    }
}
