import Foundation

extension SimpleNetworking {
    /// Makes the request an endpoint describes, bound to this client, for handlers of its own or
    /// ``SimpleRequest/response()``.
    /// - Parameters:
    ///   - endpoint: The endpoint.
    ///   - method: The method to use instead of the endpoint's ``Endpoint/method``, or `nil`.
    /// - Returns: The request, after the endpoint's ``Endpoint/configure(_:)``.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)`` when the path template cannot be filled or the
    ///   endpoint's base URL and path do not form a URL; nothing is sent.
    public func request<E: Endpoint>(for endpoint: E, method: HTTPMethod? = nil) throws(SimpleNetworkingError)
        -> SimpleRequest
    {
        let path = try PathTemplate(endpoint.path).path(with: endpoint.pathValues)
        let method = method ?? endpoint.method
        let request: SimpleRequest
        if let baseURL = endpoint.baseURL {
            request = self.request(method, url: try Self.url(path, below: baseURL))
        } else {
            request = self.request(method, path)
        }
        for (name, value) in endpoint.query.sorted(by: { $0.key < $1.key }) { request.query(name, value) }
        for field in endpoint.headers { request.header(field.name, field.value) }
        if (endpoint.body as? any AbsentBody)?.isAbsent != true { request.body(json: endpoint.body) }
        return endpoint.configure(request)
    }

    /// Sends an endpoint and returns its decoded ``Endpoint/Response``, after every handler and retry.
    ///
    /// The request runs through the same pipeline as every other: default headers (to the client's origin only),
    /// retries, re-authentication, redirects and limits apply unchanged. An endpoint whose response is
    /// ``NoContent`` returns without reading the body, so a 204 or an empty body is fine there.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``: as ``SimpleRequest/response()`` describes,
    ///   ``SimpleNetworkingError/invalidURL(reason:)`` as ``request(for:method:)`` describes, and
    ///   ``SimpleNetworkingError/decodingFailed(type:reason:response:)``, for an empty body where a value is
    ///   expected too.
    @discardableResult
    public func send<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: nil)
    }

    /// Sends an endpoint as a `GET`, whatever its ``Endpoint/method``, and returns its decoded response, as
    /// ``send(_:)`` does.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func get<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .get)
    }

    /// Sends an endpoint as a `POST`, whatever its ``Endpoint/method``, as ``send(_:)`` does.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func post<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .post)
    }

    /// Sends an endpoint as a `PUT`, whatever its ``Endpoint/method``, as ``send(_:)`` does.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func put<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .put)
    }

    /// Sends an endpoint as a `PATCH`, whatever its ``Endpoint/method``, as ``send(_:)`` does.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func patch<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .patch)
    }

    /// Sends an endpoint as a `DELETE`, whatever its ``Endpoint/method``, as ``send(_:)`` does.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func delete<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .delete)
    }

    private func send<E: Endpoint>(_ endpoint: E, method: HTTPMethod?) async throws(SimpleNetworkingError)
        -> E.Response
    {
        let response = try await request(for: endpoint, method: method).response()
        return try endpoint.decode(response, decoder: configuration.decoder)
    }

    /// `path` (already filled) below an endpoint's own base URL, by the rules a path below the client's base URL
    /// follows: it cannot name another origin or climb above the base path (<doc:SecurityDefaults>).
    static func url(_ path: String, below baseURL: URL) throws(SimpleNetworkingError) -> URL {
        let base = BaseURL(baseURL)
        let prefix = try base.prefix.get()
        try URLEncoding.refuseOriginChange(in: path)
        let (rawPath, rawQuery) = URLEncoding.split(path)
        let encodedPath = URLEncoding.encode(rawPath, allowing: URLEncoding.pathBytes)
        var text = prefix
        text += try URLEncoding.resolvingDotSegments(encodedPath.hasPrefix("/") ? encodedPath : "/" + encodedPath)
        if let rawQuery, !rawQuery.isEmpty {
            text += "?" + URLEncoding.encode(rawQuery, allowing: URLEncoding.queryBytes)
        }
        guard let url = URL(string: text), let origin = Origin(url), origin == base.origin else {
            throw .invalidURL(reason: "the endpoint's path does not form a valid URL with its base URL")
        }
        return url
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
