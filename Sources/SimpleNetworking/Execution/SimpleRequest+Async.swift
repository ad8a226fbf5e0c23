import Foundation

extension SimpleRequest {
    /// Runs the request and returns its final response, after every handler and retry.
    ///
    /// Handlers registered on the request still run, in the usual order, before this returns. Cancelling the
    /// awaiting task cancels the request.
    ///
    /// ```swift
    /// let response = try await api.get("/users/1").response()  // bound by api.get
    /// let other = try await SimpleNetworking.get("/users/2").response(on: api)
    /// ```
    /// - Parameter client: The client to run on; `nil` (the default) for the client the request is bound to (one
    ///   made by `api.get(...)`).
    /// - Returns: The 2xx response that reached the success handlers.
    /// - Throws: ``SimpleNetworkingError``: ``SimpleNetworkingError/unacceptableStatus(_:)`` for other statuses,
    ///   ``SimpleNetworkingError/stoppedByHandler(_:)`` when a status handler stopped the chain without retrying,
    ///   ``SimpleNetworkingError/cancelled`` when cancelled, ``SimpleNetworkingError/requestInProgress`` when the
    ///   request is already running, and ``SimpleNetworkingError/invalidRequest(reason:)`` when no client is given
    ///   and the request is not bound to one.
    public func response(on client: SimpleNetworking? = nil) async throws(SimpleNetworkingError) -> SimpleResponse {
        let client = try self.client(given: client)
        guard let outcome = await runInCaller(on: client) else { throw .requestInProgress }
        return try outcome.get()
    }

    /// Runs the request and decodes its final response's body: the one way to decode a request's answer.
    ///
    /// The body is decoded by the same step as ``decoding(_:decoder:)``'s, once the 2xx response has arrived and
    /// before the success handlers, never on the handler queue: a body that does not decode reaches the error handlers
    /// as ``SimpleNetworkingError/decodingFailed(type:reason:response:)``, and the success handlers do not run.
    ///
    /// ```swift
    /// let user = try await api.get("/users/1").decode(User.self)
    ///
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// let other = try await api.get("/users/2").decode(User.self, decoder: decoder)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder for this request only; `nil` (the default) for the client's
    ///     ``SimpleNetworking/Configuration/decoder``.
    ///   - client: The client to run on; `nil` (the default) for the client the request is bound to.
    /// - Returns: The decoded value.
    /// - Throws: ``SimpleNetworkingError``, as ``response(on:)`` describes, or
    ///   ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
    public func decode<Value: Decodable>(
        _ type: Value.Type = Value.self, decoder: JSONDecoder? = nil, on client: SimpleNetworking? = nil
    ) async throws(SimpleNetworkingError) -> Value {
        let client = try self.client(given: client)
        let decodeBody = DecodeBody { response, decoder in try response.decode(Value.self, decoder: decoder) }
        let step = Transform { response, client in
            TransformedValue(try decodeBody.decode(response, decoder ?? client.configuration.decoder))
        }
        guard let outcome = await runInCaller(on: client, valueStep: step) else { throw .requestInProgress }
        guard let value = try outcome.get().transformedValue as? Value else {
            // Not reached: a 2xx that succeeds carries the step's value, and the step's failures are thrown above.
            throw .decodingFailed(
                type: String(describing: Value.self), reason: "the response carries no decoded value", response: nil)
        }
        return value
    }

    /// The client a request runs on: the one given, else the one it is bound to.
    func client(given client: SimpleNetworking?) throws(SimpleNetworkingError) -> SimpleNetworking {
        guard let client = client ?? self.client else {
            throw .invalidRequest(reason: "the request is not bound to a client; pass one with on:")
        }
        return client
    }
}

/// The decoding of ``SimpleRequest/decode(_:decoder:on:)``'s type, for its value step.
///
/// `@unchecked Sendable`: it holds only the decoding of a type, a metatype that never changes; `decode(_:)` takes any
/// `Decodable`, whose metatype Swift does not know to be `Sendable`.
private struct DecodeBody: @unchecked Sendable {
    let decode: (SimpleResponse, JSONDecoder) throws -> Any
}
