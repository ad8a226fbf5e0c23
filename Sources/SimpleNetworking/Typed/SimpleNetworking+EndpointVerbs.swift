import Foundation

// The verbs of an endpoint, as Kringle users write them (<doc:ComingFromKringle>): `try await api.get(cat)`. The verb
// is the method sent, whatever the endpoint's own; `send(_:)` sends the endpoint's own method.
extension SimpleNetworking {
    /// Sends an endpoint as a `GET`, whatever its own method, and returns its decoded ``Endpoint/Response``:
    /// ``send(_:method:)`` with `.get`.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func get<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .get)
    }

    /// Sends an endpoint as a `POST`, whatever its own method, and returns its decoded ``Endpoint/Response``:
    /// ``send(_:method:)`` with `.post`.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func post<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .post)
    }

    /// Sends an endpoint as a `PUT`, whatever its own method, and returns its decoded ``Endpoint/Response``:
    /// ``send(_:method:)`` with `.put`.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func put<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .put)
    }

    /// Sends an endpoint as a `PATCH`, whatever its own method, and returns its decoded ``Endpoint/Response``:
    /// ``send(_:method:)`` with `.patch`.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func patch<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .patch)
    }

    /// Sends an endpoint as a `DELETE`, whatever its own method, and returns its decoded ``Endpoint/Response``:
    /// ``send(_:method:)`` with `.delete`.
    /// - Parameter endpoint: The endpoint.
    /// - Returns: The decoded response.
    /// - Throws: ``SimpleNetworkingError``, as ``send(_:)`` describes.
    @discardableResult
    public func delete<E: Endpoint>(_ endpoint: E) async throws(SimpleNetworkingError) -> E.Response {
        try await send(endpoint, method: .delete)
    }
}
