import Foundation

extension SimpleRequest {
    /// The transform step as stored: it gets the client too, for its decoder.
    typealias Transform = @Sendable (SimpleResponse, SimpleNetworking) throws(SimpleNetworkingError) -> any Sendable
    /// A success handler of a transformed value, type-erased.
    typealias ValueHandler = @Sendable (any Sendable) -> Void
    /// What the transform step of one response gave.
    typealias TransformResult = Result<any Sendable, SimpleNetworkingError>

    /// Adds a step that turns each 2xx response into a value, and returns the request with success handlers for
    /// that value.
    ///
    /// The step runs once the response has arrived, before the handlers and never on the handler queue or the main
    /// thread, so decoding a large body cannot freeze an app. An error it throws goes to the error handlers, and to
    /// an awaiting ``response()``; otherwise the success handlers of the response run, then those of the value.
    /// Completion handlers still run once per execution.
    ///
    /// ```swift
    /// api.get("/users/1")
    ///     .transform { response in try response.decode(User.self) }
    ///     .on(success: { user in print(user.name) })
    ///     .on(error: { error in print(error) })
    ///     .execute(on: api)
    /// ```
    /// - Parameter transform: Turns a 2xx response into the value. A request has one transform step; a second call
    ///   replaces it, and the value handlers added for the first one are no longer called.
    /// - Returns: The same request, with handlers for the value.
    public func transform<Value: Sendable>(
        _ transform: @escaping @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Value
    ) -> TransformedRequest<Value> {
        state.withLock { state in
            state.transform = { response, _ throws(SimpleNetworkingError) in try transform(response) }
            state.valueHandlers = []
        }
        return TransformedRequest(request: self)
    }

    /// Adds a step that decodes each 2xx response as `type`, off the handler queue and the main thread; see
    /// ``transform(_:)``.
    ///
    /// ```swift
    /// api.get("/users/1") { request in
    ///     request.decoding(User.self).on(success: { user in print(user.name) }).request
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder; `nil` (the default) uses the client's
    ///     ``SimpleNetworking/Configuration/decoder``.
    /// - Returns: The same request, with handlers for the decoded value. A body that does not decode reaches the
    ///   error handlers as ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
    public func decoding<Value: Decodable & Sendable>(_ type: Value.Type, decoder: JSONDecoder? = nil)
        -> TransformedRequest<Value>
    {
        state.withLock { state in
            state.transform = { response, client throws(SimpleNetworkingError) in
                try response.decode(type, decoder: decoder ?? client.configuration.decoder)
            }
            state.valueHandlers = []
        }
        return TransformedRequest(request: self)
    }
}

/// A request whose 2xx responses are turned into a `Value` before its success handlers see them.
///
/// Made by ``SimpleRequest/transform(_:)`` or ``SimpleRequest/decoding(_:decoder:)``. It is a view of the same
/// ``SimpleRequest``: handlers added through either run in the usual order, and ``request`` gives the request back
/// for its other builders.
public struct TransformedRequest<Value: Sendable>: Sendable {
    /// The request underneath.
    public let request: SimpleRequest

    /// Adds a success handler for the value: it runs after the success handlers of the response.
    /// - Parameter handler: Called with the value.
    /// - Returns: This request.
    @discardableResult
    public func on(success handler: @escaping @Sendable (Value) -> Void) -> Self {
        request.state.withLock { state in
            state.valueHandlers.append { value in
                if let value = value as? Value { handler(value) }
            }
        }
        return self
    }

    /// Adds an error handler, as on the request; it also receives what the transform step threw.
    /// - Parameter handler: Called with the error.
    /// - Returns: This request.
    @discardableResult
    public func on(error handler: @escaping @Sendable (SimpleNetworkingError) -> Void) -> Self {
        request.on(error: handler)
        return self
    }

    /// Adds a completion handler: it runs last, exactly once per execution.
    /// - Parameter handler: Called with no arguments.
    /// - Returns: This request.
    @discardableResult
    public func on(completion handler: @escaping @Sendable () -> Void) -> Self {
        request.on(completion: handler)
        return self
    }

    /// Runs the bound request and returns the value its transform step made of the final 2xx response, after every
    /// handler and retry; the async form of the success handlers.
    ///
    /// ```swift
    /// let user = try await api.get("/users/1").transform { try $0.decode(User.self) }.value()
    /// ```
    /// - Returns: The value.
    /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/response()`` describes, including what the transform
    ///   step threw.
    public func value() async throws(SimpleNetworkingError) -> Value {
        request.state.withLock { $0.transformedValue = nil }
        _ = try await request.response()
        guard let value = request.state.withLock({ $0.transformedValue }) as? Value else {
            // Only when the transform step was replaced by one of another type while the request ran.
            throw .decodingFailed(
                type: String(describing: Value.self), reason: "the transform step made no value of this type",
                response: nil)
        }
        return value
    }

    /// Executes the request on `client`; see ``SimpleRequest/execute(on:)``.
    /// - Parameter client: The client to run on.
    /// - Returns: This request.
    @discardableResult
    public func execute(on client: SimpleNetworking) -> Self {
        request.execute(on: client)
        return self
    }
}
