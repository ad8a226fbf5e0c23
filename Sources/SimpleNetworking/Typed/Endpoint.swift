import Foundation

/// A description of one call to an API: where it goes, what it sends, and the `Decodable` value it answers with.
///
/// Only ``path`` is required; every other requirement has a default. An enum with a case per endpoint, or a
/// struct per endpoint, conforms, and ``SimpleNetworking/send(_:)`` sends it through the same pipeline as every
/// other request (handlers, retries, re-authentication, redirects and limits apply unchanged) and returns the
/// decoded ``Response``.
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
///
/// let user = try await api.send(UserEndpoint.user(id: 1))
/// ```
public protocol Endpoint: Sendable {
    /// The value the answer's body decodes into; ``NoContent`` (the default) when no body is expected.
    associatedtype Response: Decodable & Sendable = NoContent
    /// The body's type; ``NoContent`` (the default) sends no body.
    associatedtype Body: Encodable & Sendable = NoContent

    /// An origin and base path of the endpoint's own, or `nil` (the default) for the client's base URL.
    ///
    /// The client's default headers are only sent when this URL has the client's base URL origin.
    var baseURL: URL? { get }
    /// The HTTP method; default `GET`. The verb forms, such as `api.get(endpoint)`, use
    /// their own verb instead.
    var method: HTTPMethod { get }
    /// The path below the base URL, a ``PathTemplate``: each `{name}` is filled from ``pathValues``. A literal
    /// brace is not allowed; put values that come from outside in ``pathValues``, never in this text.
    var path: String { get }
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

    /// Adjusts the request after everything above is set and before it is sent: another body encoding, a
    /// timeout, handlers, headers that depend on the client (`request.client`). Default: returns it unchanged.
    /// - Parameter request: The request built from this endpoint, bound to the client.
    /// - Returns: The request to send, usually `request` itself.
    func configure(_ request: SimpleRequest) -> SimpleRequest

    /// Turns the final response into a ``Response``. Default: nothing is decoded for ``NoContent``, and
    /// otherwise the body is decoded as JSON with `decoder`, an empty body being
    /// ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
    /// - Parameters:
    ///   - response: The 2xx response that reached the success handlers.
    ///   - decoder: The client's decoder.
    /// - Returns: The value.
    /// - Throws: ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
    func decode(_ response: SimpleResponse, decoder: JSONDecoder) throws(SimpleNetworkingError) -> Response
}

extension Endpoint {
    /// The client's base URL.
    public var baseURL: URL? { nil }
    /// `GET`.
    public var method: HTTPMethod { .get }
    /// No placeholder values.
    public var pathValues: [String: String] { [:] }
    /// No query parameters.
    public var query: [String: String] { [:] }
    /// No headers of the endpoint's own.
    public var headers: HTTPHeaders { [:] }

    /// Returns `request` unchanged.
    /// - Parameter request: The request built from this endpoint.
    /// - Returns: `request`.
    public func configure(_ request: SimpleRequest) -> SimpleRequest { request }

    /// Returns ``NoContent`` without reading the body when that is the ``Response``; otherwise decodes the body
    /// as JSON.
    /// - Parameters:
    ///   - response: The final response.
    ///   - decoder: The client's decoder.
    /// - Returns: The value.
    /// - Throws: ``SimpleNetworkingError/decodingFailed(type:reason:response:)``, for an empty body too.
    public func decode(_ response: SimpleResponse, decoder: JSONDecoder) throws(SimpleNetworkingError) -> Response {
        if let nothing = NoContent() as? Response { return nothing }
        return try response.decode(Response.self, decoder: decoder)
    }
}

extension Endpoint where Body == NoContent {
    /// No body.
    public var body: NoContent { NoContent() }
}

/// Nothing: the ``Endpoint/Response`` of an endpoint whose answer has no body to read (a 204, or a body that is
/// ignored), and the ``Endpoint/Body`` of one that sends none.
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
