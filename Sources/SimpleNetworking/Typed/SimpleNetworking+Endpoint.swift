import Foundation

extension SimpleNetworking {
    /// Makes the request an endpoint describes, bound to this client, for the handler style: success handlers of
    /// the decoded ``Endpoint/Response``, error handlers that also get the endpoint's ``Endpoint/ErrorBody``, and
    /// ``TransformedRequest/value()``; ``TransformedRequest/request`` gives every other builder.
    ///
    /// ```swift
    /// try api.request(for: UserEndpoint.user(id: 1))
    ///     .on(success: { user in print(user.name) })
    ///     .on(error: { error in print(error) })
    ///     .execute(on: api)
    /// ```
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - method: The method to use instead of the endpoint's ``Endpoint/method-swift.property``, or `nil`.
    /// - Returns: The request, after the endpoint's ``Endpoint/configure(_:)``, with the endpoint's
    ///   ``Endpoint/decode(_:decoder:)`` as its transform step.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)`` when the path template cannot be filled or the
    ///   endpoint's base URL and path do not form a URL; nothing is sent.
    public func request<E: Endpoint>(for endpoint: E, method: HTTPMethod? = nil) throws(SimpleNetworkingError)
        -> TransformedRequest<E.Response>
    {
        guard endpoint.path != missingPathTemplate else {
            throw .invalidURL(reason: "\(E.self) gives no path: write `var path: String` or `static let pathTemplate`")
        }
        let path = try PathTemplate(endpoint.path).path(with: endpoint.pathValues)
        let method = method ?? endpoint.method
        let request: SimpleRequest
        if endpoint.ignoresBasePath {
            request = self.request(method, url: try Self.url(path, below: Self.origin(of: endpoint.baseURL ?? baseURL)))
        } else if let baseURL = endpoint.baseURL {
            request = self.request(method, url: try Self.url(path, below: baseURL))
        } else {
            request = self.request(method, path)
        }
        for (name, value) in endpoint.query.sorted(by: { $0.key < $1.key }) { request.query(name, value) }
        // Merged, not set one by one: a name the endpoint repeats keeps every field.
        request.update { $0.parts.headers = $0.parts.headers.merging(endpoint.headers) }
        if (endpoint.body as? any AbsentBody)?.isAbsent != true { request.body(json: endpoint.body) }
        if E.ErrorBody.self != NoContent.self { request.decodingErrors(E.ErrorBody.self, decoder: endpoint.decoder) }
        return endpoint.configure(request).transformStep { response, client in
            try endpoint.decode(response, decoder: endpoint.decoder ?? client.configuration.decoder)
        }
    }

    /// Sends an endpoint and returns its decoded ``Endpoint/Response``, after every handler and retry: the one way
    /// to send an ``Endpoint``, whichever form declares it.
    ///
    /// The request runs through the same pipeline as every other: default headers (to the client's origin only),
    /// retries, re-authentication, redirects and limits apply unchanged. An endpoint whose response is
    /// ``NoContent`` returns without reading the body, so a 204 or an empty body is fine there.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``: as ``SimpleRequest/response(on:)`` describes,
    ///   ``SimpleNetworkingError/invalidURL(reason:)`` as ``request(for:method:)`` describes,
    ///   ``SimpleNetworkingError/decodingFailed(type:reason:response:)`` (for an empty body where a value is
    ///   expected too), ``SimpleNetworkingError/errorBody(_:response:)`` for a status outside 2xx whose body
    ///   decoded into the endpoint's ``Endpoint/ErrorBody``, and
    ///   ``SimpleNetworkingError/transformFailed(underlying:response:)`` for an error of the endpoint's own
    ///   ``Endpoint/decode(_:decoder:)``.
    @discardableResult
    public func send<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await request(for: endpoint).value()
    }

    /// Sends an endpoint with another method than its own, and returns its decoded ``Endpoint/Response``, as
    /// ``send(_:)`` does: Kringle's `networkClient.delete(cat)` on a case that is otherwise a `GET` is
    /// `send(cat, method: .delete)`, or `delete(cat)`.
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - method: The method to send instead of the endpoint's ``Endpoint/method-swift.property``.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func send<E: Endpoint>(_ endpoint: E, method: HTTPMethod) async throws(SimpleNetworkingError) -> E.Response {
        try await request(for: endpoint, method: method).value()
    }

    /// The origin of `url`, without its path: the base of an endpoint that ignores the base path.
    private static func origin(of url: URL) throws(SimpleNetworkingError) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .invalidURL(reason: "the base URL must be an http or https URL with a host")
        }
        components.path = ""
        components.query = nil
        components.fragment = nil
        guard let origin = components.url else {
            throw .invalidURL(reason: "the base URL must be an http or https URL with a host")
        }
        return origin
    }

    /// `path` (already filled) below an endpoint's own base URL, by the rules of a path below the client's base URL
    /// (``BaseURL/url(forPath:query:)``).
    static func url(_ path: String, below baseURL: URL) throws(SimpleNetworkingError) -> URL {
        try BaseURL(baseURL).url(forPath: path)
    }
}

/// A body that may stand for no body at all: ``NoContent``, and an optional body that is `nil`.
protocol AbsentBody {
    var isAbsent: Bool { get }
}

extension NoContent: AbsentBody {
    var isAbsent: Bool { true }
}

extension Optional: AbsentBody {
    var isAbsent: Bool {
        if case .none = self { return true }
        return false
    }
}
