import Foundation

/// A description of one call to an API: where it goes, what it sends, the `Decodable` value it answers with, and,
/// when the API has one, the type of its error bodies.
///
/// Only a path is required, ``path`` or the type's ``pathTemplate``; every other requirement has a default. An enum
/// with a case per endpoint, a struct per request type (its method and path template `static let`s), and the
/// ``APICall`` values a declarative specification's functions return all conform, and are sent the same way:
/// ``SimpleNetworking/send(_:)`` runs the request through the same pipeline as every other (handlers, retries,
/// re-authentication, redirects and limits apply unchanged) and returns the decoded ``Response``;
/// ``SimpleNetworking/request(for:method:)`` gives the request for the handler style (<doc:TypedRequests>).
///
/// ```swift
/// enum UserEndpoint: Endpoint {
///     case user(id: Int)
///
///     typealias Response = User
///     var path: String { "/users/{id}" }
///     var pathValues: [String: String] {
///         switch self {
///         case .user(let id): ["id": "\(id)"]
///         }
///     }
/// }
/// ```
///
/// ```swift
/// let user = try await api.send(UserEndpoint.user(id: 1))
/// ```
public protocol Endpoint: Sendable {
    /// The value the answer's body decodes into; ``NoContent`` (the default) when no body is expected.
    associatedtype Response: Decodable & Sendable = NoContent
    /// The body's type; ``NoContent`` (the default) sends no body.
    associatedtype Body: Encodable & Sendable = NoContent
    /// The type a body of a status outside 2xx decodes into, such as the API's `{"error": ...}`; it reaches the error
    /// handlers and the thrown error as ``SimpleNetworkingError/errorBody(_:response:)``. ``NoContent`` (the default)
    /// decodes none: such a status is ``SimpleNetworkingError/unacceptableStatus(_:)``.
    associatedtype ErrorBody: Decodable & Sendable = NoContent

    /// The HTTP method of every value of the type, for a struct per request type: `static let method: HTTPMethod =
    /// .post`. Default: the type's ``httpMethod``, itself `GET` unless given. The instance ``method-swift.property``
    /// reads it unless the type gives its own.
    static var method: HTTPMethod { get }
    /// The same as ``method-swift.type.property``, under the name Crane and the earlier `TypedRequest` gave it:
    /// `static let httpMethod: HTTPMethod = .post` is sent as `POST` (<doc:ComingFromCrane>). Default: `GET`. A type
    /// that gives ``method-swift.type.property`` (or the instance ``method-swift.property``) is sent with that one.
    static var httpMethod: HTTPMethod { get }
    /// The HTTP method of this call; default: the type's ``method-swift.type.property``. An enum switches over its
    /// cases here.
    var method: HTTPMethod { get }
    /// An origin and base path of the endpoint's own, or `nil` (the default) for the client's base URL.
    ///
    /// The client's default headers are only sent when this URL has the client's base URL origin.
    var baseURL: URL? { get }
    /// The path below the base URL, a ``PathTemplate``: each `{name}` is filled from ``pathValues``. A literal
    /// brace is not allowed; put values that come from outside in ``pathValues``, never in this text. Default: the
    /// type's ``pathTemplate``.
    var path: String { get }
    /// The path template of every value of the type, for a struct per request type: `static let pathTemplate =
    /// "/users/{userID}"`; the instance ``path`` reads it unless the type gives its own. A type must give one of
    /// the two: one that gives neither fails with ``SimpleNetworkingError/invalidURL(reason:)`` and nothing is sent.
    static var pathTemplate: String { get }
    /// Whether ``path`` starts at the root of the base URL's origin instead of below its base path, for a call such
    /// as `/oauth/token` beside an API under `/v1`. Default `false`.
    var ignoresBasePath: Bool { get }
    /// A value for each placeholder of ``path``, each sent as one percent-encoded segment; default none.
    var pathValues: [String: String] { get }
    /// Query parameters, sent in order of name and percent-encoded so any character arrives literally; default
    /// none.
    var query: [String: String] { get }
    /// Headers of this endpoint; they win over the client's default headers of the same name. Default none.
    var headers: HTTPHeaders { get }
    /// The body, encoded as JSON with the client's encoder; a ``NoContent`` body (the default) sends none, and so
    /// does an optional body that is `nil`, so an enum can give a body to some cases only.
    var body: Body { get }
    /// The decoder for ``Response`` and ``ErrorBody``; `nil` (the default) uses the client's
    /// ``SimpleNetworking/Configuration/decoder``.
    var decoder: JSONDecoder? { get }

    /// Adjusts the request after everything above is set and before it is sent: another body encoding, a
    /// timeout, handlers, headers that depend on the client (`request.client`). Default: returns it unchanged.
    /// - Parameter request: The request built from this endpoint, bound to the client.
    /// - Returns: The request to send, usually `request` itself.
    func configure(_ request: SimpleRequest) -> SimpleRequest

    /// Turns the final 2xx response into a ``Response``; it is the request's transform step
    /// (``SimpleRequest/transform(_:)``), so it runs off the handler queue. Default: nothing is decoded for
    /// ``NoContent``, and otherwise the body is decoded as JSON with `decoder`, an empty body being
    /// ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
    /// - Parameters:
    ///   - response: The 2xx response that reached the success handlers.
    ///   - decoder: The endpoint's ``decoder-swift.property``, or else the client's decoder.
    /// - Returns: The value.
    /// - Throws: Any error: a ``SimpleNetworkingError`` arrives as it is, any other as
    ///   ``SimpleNetworkingError/transformFailed(underlying:response:)``.
    func decode(_ response: SimpleResponse, decoder: JSONDecoder) throws -> Response
}

extension Endpoint {
    /// The type's ``Endpoint/httpMethod``, `GET` unless given.
    public static var method: HTTPMethod { httpMethod }
    /// `GET`.
    public static var httpMethod: HTTPMethod { .get }
    /// The type's ``Endpoint/method-swift.type.property``.
    public var method: HTTPMethod { Self.method }
    /// The type's ``Endpoint/pathTemplate``.
    public var path: String { Self.pathTemplate }
    /// None: an endpoint that gives neither this nor ``Endpoint/path`` fails with
    /// ``SimpleNetworkingError/invalidURL(reason:)`` and nothing is sent.
    public static var pathTemplate: String { missingPathTemplate }
    /// The client's base URL.
    public var baseURL: URL? { nil }
    /// `false`: the path goes below the base path.
    public var ignoresBasePath: Bool { false }
    /// No placeholder values.
    public var pathValues: [String: String] { [:] }
    /// No query parameters.
    public var query: [String: String] { [:] }
    /// No headers of the endpoint's own.
    public var headers: HTTPHeaders { [:] }
    /// `nil`: the client's decoder.
    public var decoder: JSONDecoder? { nil }

    /// Returns `request` unchanged.
    /// - Parameter request: The request built from this endpoint.
    /// - Returns: `request`.
    public func configure(_ request: SimpleRequest) -> SimpleRequest { request }

    /// Returns ``NoContent`` without reading the body when that is the ``Response``; otherwise decodes the body
    /// as JSON.
    /// - Parameters:
    ///   - response: The final response.
    ///   - decoder: The decoder.
    /// - Returns: The value.
    /// - Throws: ``SimpleNetworkingError/decodingFailed(type:reason:response:)``, for an empty body too.
    public func decode(_ response: SimpleResponse, decoder: JSONDecoder) throws -> Response {
        if let nothing = NoContent() as? Response { return nothing }
        return try response.decode(Response.self, decoder: decoder)
    }
}

/// The default ``Endpoint/pathTemplate``: not a template any endpoint can give (a NUL cannot be sent in a path).
let missingPathTemplate = "\u{0}no path"

extension Endpoint where Body == NoContent {
    /// No body.
    public var body: NoContent { NoContent() }
}

/// Nothing: the ``Endpoint/Response`` of an endpoint whose answer has no body to read (a 204, or a body that is
/// ignored), the ``Endpoint/Body`` of one that sends none, and the ``Endpoint/ErrorBody`` of one whose error bodies
/// are not decoded.
public struct NoContent: Codable, Sendable, Hashable {
    /// Creates the one value.
    public init() {}

    /// Creates the one value without reading anything, so any body, or none, decodes.
    /// - Parameter decoder: Not read.
    public init(from decoder: any Decoder) throws {}

    /// Encodes an empty JSON object, `{}`.
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's error.
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }

    private enum NoKeys: CodingKey {}
}
