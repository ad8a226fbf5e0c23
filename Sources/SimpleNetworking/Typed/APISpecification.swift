import Foundation

/// An HTTP API described as values: a base URL, shared parameters such as an API key, a decoder and a hook for every
/// request, with its endpoints declared as ``APIEndpoint`` values (<doc:TypedRequests>).
///
/// ```swift
/// struct GIPHY: APISpecification {
///     var apiKey: String
///     var baseURL: URL
///
///     static let search = APIEndpoint<GIPHY, SearchInput, SearchOutput>(.get, "gifs/search") { request, input, api in
///         request.query(from: ["api_key": api.apiKey, "q": input.q, "limit": input.limit?.description])
///     }
/// }
/// let results = try await client.call(GIPHY.search, of: giphy, with: SearchInput(q: "cats"))
/// ```
public protocol APISpecification: Sendable {
    /// The URL every endpoint's path is appended to.
    var baseURL: URL { get }
    /// The decoder for every endpoint's output. Default: a plain `JSONDecoder`.
    var decoder: JSONDecoder { get }
    /// Runs on every endpoint's request before the endpoint's own setup: shared headers, say. Default: nothing.
    /// - Parameter request: The request being built.
    func prepare(_ request: SimpleRequest)
}

extension APISpecification {
    /// A plain `JSONDecoder`.
    public var decoder: JSONDecoder { JSONDecoder() }

    /// Does nothing.
    /// - Parameter request: The request being built.
    public func prepare(_ request: SimpleRequest) {}
}

/// One endpoint of an ``APISpecification``: its method and path, how its query, headers and body derive from an
/// `Input` and the specification, and the `Output` it decodes.
public struct APIEndpoint<Specification: APISpecification, Input: Sendable, Output: Decodable & Sendable>: Sendable {
    /// The HTTP method.
    public let method: HTTPMethod
    /// The path below the specification's base URL, such as `gifs/search`.
    public let path: String
    private let configure: @Sendable (SimpleRequest, Input, Specification) -> Void

    /// Declares an endpoint.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path below the specification's base URL; a leading `/` is optional.
    ///   - configure: Sets the query, headers and body from the input and the specification, after the
    ///     specification's ``APISpecification/prepare(_:)``. Default: nothing.
    public init(
        _ method: HTTPMethod, _ path: String,
        _ configure:
            @escaping @Sendable (_ request: SimpleRequest, _ input: Input, _ specification: Specification) ->
            Void = { _, _, _ in }
    ) {
        self.method = method
        self.path = path
        self.configure = configure
    }

    /// The request for `input`: the specification's base URL and this path, prepared by the specification, then
    /// configured by the endpoint.
    /// - Parameters:
    ///   - input: The endpoint's input.
    ///   - specification: The specification whose base URL and shared parameters apply.
    /// - Returns: An unbound request for the absolute URL; run it on any client.
    public func request(for input: Input, of specification: Specification) -> SimpleRequest {
        var base = specification.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let trimmed = path.drop { $0 == "/" }
        let request: SimpleRequest
        if let url = URL(string: base + "/" + URLEncoding.encode(String(trimmed), allowing: URLEncoding.pathBytes)) {
            request = SimpleRequest(method: method, url: url)
        } else {
            request = SimpleRequest(method: method, url: specification.baseURL)
            request.state.withLock {
                $0.buildProblem = .invalidURL(
                    reason: "the endpoint's path does not form a URL with the specification's base URL")
            }
        }
        specification.prepare(request)
        configure(request, input, specification)
        return request
    }
}

extension SimpleNetworking {
    /// Calls an endpoint of a specification and decodes its output with the specification's decoder.
    ///
    /// The request goes to the specification's base URL; this client's default headers are added only when that URL
    /// has the client's origin, and its handlers, retries, redirects and limits apply as to any request.
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - specification: The specification whose base URL, shared parameters, hook and decoder apply.
    ///   - input: The endpoint's input.
    /// - Returns: The decoded output.
    /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/decode(_:on:)`` describes.
    public func call<Specification, Input, Output>(
        _ endpoint: APIEndpoint<Specification, Input, Output>, of specification: Specification, with input: Input
    ) async throws(SimpleNetworkingError) -> Output {
        try await endpoint.request(for: input, of: specification)
            .decode(Output.self, decoder: specification.decoder, on: self)
    }
}
