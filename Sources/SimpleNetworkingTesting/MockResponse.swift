import Foundation

/// A misbehaviour the mock server applies while writing a response, to exercise client error handling.
///
/// Several faults can be combined; they apply in this order: `delayHeaders`, status line and headers (or
/// `rawResponse` instead of the whole response), `dropBeforeBody`, `delayBody`, then the body (sent `repeatBody`
/// times, paced by `drip`, cut short by `dropAfterBodyBytes`).
public enum MockFault: Sendable, Equatable {
    /// Sleeps for the given number of seconds before writing anything.
    case delayHeaders(TimeInterval)
    /// Writes the status line and headers, sleeps for the given number of seconds, then writes the body.
    case delayBody(TimeInterval)
    /// Writes the status line and headers (with the real `Content-Length`), then closes the connection.
    case dropBeforeBody
    /// Writes the headers and the first N bytes of the body as sent on the wire, then closes the connection.
    ///
    /// For chunked responses the count includes the chunk framing.
    case dropAfterBodyBytes(Int)
    /// Writes the body `bytes` at a time, sleeping `interval` seconds between writes.
    ///
    /// For chunked responses every slice is sent as its own chunk.
    case drip(bytes: Int, interval: TimeInterval)
    /// Reads the request (it is still recorded), then closes the connection without writing anything.
    case closeWithoutResponse
    /// Writes these bytes exactly, instead of the status line, headers and body, for responses that are not valid
    /// HTTP (a garbage status line, a malformed header, conflicting `Content-Length`). The connection then stays open,
    /// as after any keep-alive response, until the client closes it or the server shuts down.
    case rawResponse(Data)
    /// Sends the body this many times in a row, as one body; `Content-Length` counts every copy. With a chunked
    /// response each copy is its own chunk, and `.repeatBody(.max)` is a body that never ends (until the client
    /// closes the connection or the server shuts down), for testing size limits without holding the body in memory.
    case repeatBody(Int)
}

/// A canned HTTP response that the mock server writes for one request.
public struct MockResponse: Sendable {
    /// The status code, e.g. `200`.
    public var status: Int
    /// The reason phrase; when `nil` a phrase is derived from `status` ("OK", "Not Found", ... or "Status").
    public var reason: String?
    /// Header fields, sent verbatim and in order.
    ///
    /// `Content-Length` is added automatically unless the response is chunked, already has one, or its status
    /// forbids a body (1xx, 204, 304). `Transfer-Encoding: chunked` is added for chunked responses that lack it.
    public var headers: [(name: String, value: String)]
    /// The body bytes (never sent for `HEAD` requests or for 1xx, 204 and 304 statuses).
    public var body: Data
    /// Whether the body is sent with `Transfer-Encoding: chunked`.
    public var chunked: Bool
    /// Trailer fields sent after a chunked body (RFC 9112, section 7.1.2), verbatim and in order; ignored unless the
    /// response is ``chunked``. A transport drops them and delivers the body. Default: none.
    public var trailers: [(name: String, value: String)] = []
    /// Faults to inject while writing this response.
    public var faults: [MockFault]
    /// The steps of an event stream written instead of `body` (``eventStream(_:ending:headers:)``), and how it ends.
    var eventStream: (steps: [MockEvent], end: MockEventStreamEnd)?

    /// Creates a response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: Header fields, sent verbatim and in order.
    ///   - body: The body bytes.
    ///   - chunked: Whether to send the body with chunked transfer coding.
    ///   - faults: Faults to inject while writing the response.
    public init(
        status: Int = 200, headers: [(name: String, value: String)] = [], body: Data = Data(),
        chunked: Bool = false, faults: [MockFault] = []
    ) {
        self.status = status
        self.reason = nil
        self.headers = headers
        self.body = body
        self.chunked = chunked
        self.faults = faults
    }

    /// A UTF-8 plain-text response.
    /// - Parameters:
    ///   - string: The body text.
    ///   - status: The status code.
    ///   - headers: Extra header fields, sent after `Content-Type`.
    /// - Returns: A response with `Content-Type: text/plain; charset=utf-8`.
    public static func text(_ string: String, status: Int = 200, headers: [(name: String, value: String)] = [])
        -> MockResponse
    {
        MockResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: Data(string.utf8))
    }

    /// A JSON response whose body is `string` exactly as given.
    /// - Parameters:
    ///   - string: The JSON text.
    ///   - status: The status code.
    ///   - headers: Extra header fields, sent after `Content-Type`.
    /// - Returns: A response with `Content-Type: application/json`.
    public static func json(_ string: String, status: Int = 200, headers: [(name: String, value: String)] = [])
        -> MockResponse
    {
        MockResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(string.utf8))
    }

    /// A JSON response whose body is `value` encoded with `JSONEncoder` (keys sorted).
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - status: The status code.
    /// - Returns: A response with `Content-Type: application/json`.
    /// - Throws: Any error thrown by `JSONEncoder.encode(_:)`.
    public static func json<T: Encodable>(encoding value: T, status: Int = 200) throws -> MockResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return MockResponse(
            status: status, headers: [("Content-Type", "application/json")], body: try encoder.encode(value))
    }

    /// A redirect with a `Location` header and an empty body.
    /// - Parameters:
    ///   - location: The `Location` header value.
    ///   - status: The redirect status code.
    /// - Returns: The redirect response.
    public static func redirect(to location: String, status: Int = 302) -> MockResponse {
        MockResponse(status: status, headers: [("Location", location)])
    }

    /// An empty-bodied response with the given status.
    /// - Parameter status: The status code.
    /// - Returns: The response.
    public static func status(_ status: Int) -> MockResponse {
        MockResponse(status: status)
    }

    /// The reason phrase actually sent: `reason`, or a standard phrase for `status`.
    var effectiveReason: String {
        if let reason { return reason }
        return Self.standardReasons[status] ?? "Status"
    }

    /// Whether the status forbids a message body.
    var statusForbidsBody: Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    private static let standardReasons: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted",
        204: "No Content", 206: "Partial Content", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
        401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required",
        412: "Precondition Failed", 413: "Content Too Large", 415: "Unsupported Media Type",
        416: "Range Not Satisfiable", 422: "Unprocessable Content", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 500: "Internal Server Error", 501: "Not Implemented",
        502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    ]
}
