import Foundation

/// One call as a value: the ``Endpoint`` a declarative specification's functions return.
///
/// A specification is a type of your own that holds a base URL and the parameters every call shares (an API key, a
/// tenant, a decoder); each of its functions derives one call from its input and returns an `APICall` of the
/// `Response` it decodes. Every call is sent like any other endpoint, with ``SimpleNetworking/send(_:)``
/// (<doc:TypedRequests>).
///
/// ```swift
/// struct Notes: Sendable {
///     var baseURL: URL
///     var tenant: String
///
///     func note(id: Int) -> APICall<Note> {
///         APICall(.get, "/notes/{id}", baseURL: baseURL, pathValues: ["id": "\(id)"], headers: ["X-Tenant": tenant])
///     }
/// }
///
/// let notes = Notes(baseURL: baseURL, tenant: "acme")
/// let note = try await api.send(notes.note(id: 7))
/// ```
public struct APICall<Response: Decodable & Sendable>: Endpoint {
    /// The HTTP method.
    public var method: HTTPMethod
    /// The path template below ``baseURL``; see ``Endpoint/path``.
    public var path: String
    /// The specification's base URL, or `nil` for the client's.
    public var baseURL: URL?
    /// Whether ``path`` starts at the root of the base URL's origin; see ``Endpoint/ignoresBasePath``.
    public var ignoresBasePath = false
    /// A value for each placeholder of ``path``.
    public var pathValues: [String: String]
    /// The query parameters.
    public var query: [String: String]
    /// The headers of this call.
    public var headers: HTTPHeaders
    /// The decoder for the response and error bodies, or `nil` for the client's.
    public var decoder: JSONDecoder?
    /// The steps that adjust the built request, in order: the body, then those of ``configured(_:)``.
    private var steps: [@Sendable (SimpleRequest) -> SimpleRequest] = []

    /// Describes a call without a body.
    /// - Parameters:
    ///   - method: The HTTP method; default `GET`.
    ///   - path: The path template; a leading `/` is optional.
    ///   - baseURL: The specification's base URL, or `nil` (the default) for the client's.
    ///   - ignoresBasePath: Whether `path` starts at the root of the base URL's origin, for a call such as
    ///     `/oauth/token` beside an API under `/v1`; default `false` (``Endpoint/ignoresBasePath``).
    ///   - pathValues: A value for each placeholder of `path`.
    ///   - query: The query parameters; a `nil` value is left out, so an optional input can be passed as it is.
    ///   - headers: The headers of this call.
    ///   - decoder: The decoder, or `nil` (the default) for the client's.
    ///   - response: The type the answer decodes into, where nothing else names it:
    ///     `APICall(.post, "/oauth/token", ignoresBasePath: true, returning: Token.self)`; ``NoContent`` for none.
    public init(
        _ method: HTTPMethod = .get, _ path: String, baseURL: URL? = nil, ignoresBasePath: Bool = false,
        pathValues: [String: String] = [:], query: [String: String?] = [:], headers: HTTPHeaders = [:],
        decoder: JSONDecoder? = nil, returning response: Response.Type = Response.self
    ) {
        self.method = method
        self.path = path
        self.baseURL = baseURL
        self.ignoresBasePath = ignoresBasePath
        self.pathValues = pathValues
        self.query = query.compactMapValues { $0 }
        self.headers = headers
        self.decoder = decoder
    }

    /// Describes a call with a JSON body, encoded with the client's encoder.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path template; a leading `/` is optional.
    ///   - baseURL: The specification's base URL, or `nil` (the default) for the client's.
    ///   - ignoresBasePath: Whether `path` starts at the root of the base URL's origin; default `false`.
    ///   - pathValues: A value for each placeholder of `path`.
    ///   - query: The query parameters; a `nil` value is left out.
    ///   - headers: The headers of this call.
    ///   - body: The body.
    ///   - decoder: The decoder, or `nil` (the default) for the client's.
    ///   - response: The type the answer decodes into, where nothing else names it; ``NoContent`` for none.
    public init<Body: Encodable & Sendable>(
        _ method: HTTPMethod, _ path: String, baseURL: URL? = nil, ignoresBasePath: Bool = false,
        pathValues: [String: String] = [:], query: [String: String?] = [:], headers: HTTPHeaders = [:], body: Body,
        decoder: JSONDecoder? = nil, returning response: Response.Type = Response.self
    ) {
        self.init(
            method, path, baseURL: baseURL, ignoresBasePath: ignoresBasePath, pathValues: pathValues, query: query,
            headers: headers, decoder: decoder)
        steps.append { request in request.body(json: body) }
    }

    /// This call with one more step that adjusts the built request: handlers, a timeout, another body encoding.
    /// - Parameter step: Gets the request and returns it, usually the same one.
    /// - Returns: The call with the step added after the earlier ones.
    public func configured(_ step: @escaping @Sendable (SimpleRequest) -> SimpleRequest) -> Self {
        var call = self
        call.steps.append(step)
        return call
    }

    /// This call with its error bodies decoded into `type`, as ``SimpleRequest/decodingErrors(_:decoder:)`` does.
    /// - Parameter type: The API's error body.
    /// - Returns: The call that decodes error bodies, with its ``decoder`` or the client's.
    public func decodingErrors<Failure: Decodable & Sendable>(_ type: Failure.Type) -> Self {
        let decoder = decoder
        return configured { request in request.decodingErrors(type, decoder: decoder) }
    }

    /// Runs the steps in order.
    /// - Parameter request: The request built from this call.
    /// - Returns: The request after every step.
    public func configure(_ request: SimpleRequest) -> SimpleRequest {
        steps.reduce(request) { request, step in step(request) }
    }
}
