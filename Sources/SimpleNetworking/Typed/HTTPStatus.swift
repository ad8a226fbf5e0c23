/// An HTTP status: a code with a name, and the class it belongs to.
///
/// Write a status by name (`.notFound`) or as an integer literal (`404`); any code is allowed, named or not. It is
/// `Codable` as its code (`404` in JSON), so a response model can hold one.
///
/// ```swift
/// let response = try await api.get("/users/1").response()
/// if response.status == .noContent { print("nothing to show") }
/// ```
public struct HTTPStatus: RawRepresentable, Sendable, Hashable, Comparable, Codable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    /// The status code, for example `404`.
    public let code: Int

    /// Creates a status from its code.
    /// - Parameter code: The status code.
    public init(_ code: Int) {
        self.code = code
    }

    /// Creates a status from its code; never fails.
    /// - Parameter rawValue: The status code.
    public init(rawValue: Int) {
        self.init(rawValue)
    }

    /// Creates a status from an integer literal, so `404` can be written where a status is expected.
    /// - Parameter value: The status code.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// The status code, the same as ``code``.
    public var rawValue: Int { code }

    /// The code, for example `"404"`.
    public var description: String { "\(code)" }

    /// Orders statuses by code.
    /// - Parameters:
    ///   - lhs: A status.
    ///   - rhs: Another status.
    /// - Returns: Whether `lhs` has the lower code.
    public static func < (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code < rhs.code }

    /// Whether the status is 1xx: the request was received and goes on.
    public var isInformational: Bool { (100..<200).contains(code) }
    /// Whether the status is 2xx: the request succeeded.
    public var isSuccess: Bool { (200..<300).contains(code) }
    /// Whether the status is 3xx: the answer is elsewhere.
    public var isRedirection: Bool { (300..<400).contains(code) }
    /// Whether the status is 4xx: the request was at fault.
    public var isClientError: Bool { (400..<500).contains(code) }
    /// Whether the status is 5xx: the server was at fault.
    public var isServerError: Bool { (500..<600).contains(code) }
}

extension HTTPStatus {
    /// `100 Continue`.
    public static let `continue`: HTTPStatus = 100
    /// `101 Switching Protocols`.
    public static let switchingProtocols: HTTPStatus = 101
    /// `200 OK`.
    public static let ok: HTTPStatus = 200
    /// `201 Created`.
    public static let created: HTTPStatus = 201
    /// `202 Accepted`.
    public static let accepted: HTTPStatus = 202
    /// `204 No Content`.
    public static let noContent: HTTPStatus = 204
    /// `206 Partial Content`.
    public static let partialContent: HTTPStatus = 206
    /// `301 Moved Permanently`.
    public static let movedPermanently: HTTPStatus = 301
    /// `302 Found`.
    public static let found: HTTPStatus = 302
    /// `303 See Other`.
    public static let seeOther: HTTPStatus = 303
    /// `304 Not Modified`.
    public static let notModified: HTTPStatus = 304
    /// `307 Temporary Redirect`.
    public static let temporaryRedirect: HTTPStatus = 307
    /// `308 Permanent Redirect`.
    public static let permanentRedirect: HTTPStatus = 308
    /// `400 Bad Request`.
    public static let badRequest: HTTPStatus = 400
    /// `401 Unauthorized`.
    public static let unauthorized: HTTPStatus = 401
    /// `403 Forbidden`.
    public static let forbidden: HTTPStatus = 403
    /// `404 Not Found`.
    public static let notFound: HTTPStatus = 404
    /// `405 Method Not Allowed`.
    public static let methodNotAllowed: HTTPStatus = 405
    /// `406 Not Acceptable`.
    public static let notAcceptable: HTTPStatus = 406
    /// `408 Request Timeout`.
    public static let requestTimeout: HTTPStatus = 408
    /// `409 Conflict`.
    public static let conflict: HTTPStatus = 409
    /// `410 Gone`.
    public static let gone: HTTPStatus = 410
    /// `412 Precondition Failed`.
    public static let preconditionFailed: HTTPStatus = 412
    /// `413 Content Too Large`.
    public static let contentTooLarge: HTTPStatus = 413
    /// `415 Unsupported Media Type`.
    public static let unsupportedMediaType: HTTPStatus = 415
    /// `422 Unprocessable Content`.
    public static let unprocessableContent: HTTPStatus = 422
    /// `429 Too Many Requests`.
    public static let tooManyRequests: HTTPStatus = 429
    /// `500 Internal Server Error`.
    public static let internalServerError: HTTPStatus = 500
    /// `501 Not Implemented`.
    public static let notImplemented: HTTPStatus = 501
    /// `502 Bad Gateway`.
    public static let badGateway: HTTPStatus = 502
    /// `503 Service Unavailable`.
    public static let serviceUnavailable: HTTPStatus = 503
    /// `504 Gateway Timeout`.
    public static let gatewayTimeout: HTTPStatus = 504
}

extension SimpleResponse {
    /// The status as an ``HTTPStatus``, with its name and class: `response.status == .notFound`,
    /// `response.status.isClientError`. The same code as ``statusCode``.
    public var status: HTTPStatus { HTTPStatus(statusCode) }
}

extension HTTPStatusHandlers {
    /// The handlers that apply to `status`, in the order added, or `nil` when there are none.
    public subscript(status: HTTPStatus) -> [Handler]? { self[status.code] }
}

extension SimpleRequest {
    /// Adds a handler for one HTTP status, named: `on(httpStatus: .unauthorized) { ... }`. Status handlers run
    /// first, in the order added; the `Int` form, `on(httpStatus: 401)`, does the same.
    /// - Parameters:
    ///   - status: The status, for example ``HTTPStatus/unauthorized``.
    ///   - handler: Called with this request and the response; returns `true` to continue, `false` to stop.
    /// - Returns: This request.
    @discardableResult
    public func on(httpStatus status: HTTPStatus, _ handler: @escaping HTTPStatusHandlers.Handler) -> Self {
        on(httpStatus: status.code, handler)
    }

    /// Adds one handler for a range of named statuses: `on(httpStatus: .internalServerError ... .gatewayTimeout)`.
    /// It is registered for every code in the range, as the `Int` range form is.
    /// - Parameters:
    ///   - statuses: The statuses, for example `HTTPStatus.badRequest ... .tooManyRequests`.
    ///   - handler: Called with this request and the response; returns `true` to continue, `false` to stop.
    /// - Returns: This request.
    @discardableResult
    public func on(httpStatus statuses: ClosedRange<HTTPStatus>, _ handler: @escaping HTTPStatusHandlers.Handler)
        -> Self
    {
        on(httpStatus: statuses.lowerBound.code...statuses.upperBound.code, handler)
    }
}
