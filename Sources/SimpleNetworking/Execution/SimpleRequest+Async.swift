import Foundation

extension SimpleRequest {
    /// Runs a bound request (one made by `api.get(...)`) and returns its final response, after every handler and
    /// retry.
    ///
    /// Handlers registered on the request still run, in the usual order, before this returns. Cancelling the
    /// awaiting task cancels the request.
    /// - Returns: The 2xx response that reached the success handlers.
    /// - Throws: ``SimpleNetworkingError``: ``SimpleNetworkingError/unacceptableStatus(_:)`` for other statuses,
    ///   ``SimpleNetworkingError/stoppedByHandler(_:)`` when a status handler stopped the chain without retrying,
    ///   ``SimpleNetworkingError/cancelled`` when cancelled, and ``SimpleNetworkingError/invalidRequest(reason:)``
    ///   when the request is not bound to a client.
    public func response() async throws(SimpleNetworkingError) -> SimpleResponse {
        guard let client else {
            throw .invalidRequest(reason: "the request is not bound to a client; use response(on:)")
        }
        return try await response(on: client)
    }

    /// Runs the request on `client` and returns its final response, after every handler and retry.
    /// - Parameter client: The client to run on.
    /// - Returns: The 2xx response that reached the success handlers.
    /// - Throws: ``SimpleNetworkingError``, as ``response()`` describes, or
    ///   ``SimpleNetworkingError/requestInProgress`` when the request is already running.
    public func response(on client: SimpleNetworking) async throws(SimpleNetworkingError) -> SimpleResponse {
        guard let execution = start(on: client) else { throw .requestInProgress }
        let outcome = await withTaskCancellationHandler {
            await execution.value
        } onCancel: {
            execution.cancel()
        }
        return try outcome.get()
    }

    /// Runs a bound request and decodes its body with the client's decoder.
    /// - Parameter type: The type to decode.
    /// - Returns: The decoded value.
    /// - Throws: ``SimpleNetworkingError``, as ``response()`` describes, or
    ///   ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self) async throws(SimpleNetworkingError) -> Value {
        guard let client else {
            throw .invalidRequest(reason: "the request is not bound to a client; use decode(_:on:)")
        }
        return try await decode(type, on: client)
    }

    /// Runs the request on `client` and decodes its body with the client's decoder.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - client: The client to run on.
    /// - Returns: The decoded value.
    /// - Throws: ``SimpleNetworkingError``, as ``response(on:)`` describes, or
    ///   ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self, on client: SimpleNetworking)
        async throws(SimpleNetworkingError) -> Value
    {
        try await response(on: client).decode(type, decoder: client.configuration.decoder)
    }

    /// Runs a bound request and decodes its body with `decoder` instead of the client's.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// let user = try await api.get("/users/1").decode(User.self, decoder: decoder)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder for this request only.
    /// - Returns: The decoded value.
    /// - Throws: ``SimpleNetworkingError``, as ``decode(_:)`` describes.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self, decoder: JSONDecoder)
        async throws(SimpleNetworkingError) -> Value
    {
        guard let client else {
            throw .invalidRequest(reason: "the request is not bound to a client; use decode(_:decoder:on:)")
        }
        return try await decode(type, decoder: decoder, on: client)
    }

    /// Runs the request on `client` and decodes its body with `decoder` instead of the client's.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder for this request only.
    ///   - client: The client to run on.
    /// - Returns: The decoded value.
    /// - Throws: ``SimpleNetworkingError``, as ``decode(_:on:)`` describes.
    public func decode<Value: Decodable>(
        _ type: Value.Type = Value.self, decoder: JSONDecoder, on client: SimpleNetworking
    ) async throws(SimpleNetworkingError) -> Value {
        try await response(on: client).decode(type, decoder: decoder)
    }
}
