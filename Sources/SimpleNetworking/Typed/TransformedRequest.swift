import Foundation

extension SimpleRequest {
    /// The steps that turn a response into a value, as stored: each gets the client too, for its decoder.
    struct Transform: Sendable {
        /// Turns a 2xx response into the value for the value handlers and ``TransformedRequest/value()``.
        var value: (@Sendable (SimpleResponse, SimpleNetworking) throws -> TransformedValue)?
        /// Decodes the body of a status outside 2xx into the app's error type; `nil` when it does not decode.
        var errorBody: (@Sendable (SimpleResponse, SimpleNetworking) -> (any Sendable)?)?
    }
    /// A success handler of a transformed value, type-erased.
    typealias ValueHandler = @Sendable (Any) -> Void
    /// What the transform steps made of one response: the value of a 2xx, or the error it becomes.
    typealias TransformResult = Result<TransformedValue, SimpleNetworkingError>

    /// Adds a step that turns each 2xx response into a value, and returns the request with success handlers for
    /// that value.
    ///
    /// The step runs once the response has arrived, before the handlers and never on the handler queue or the main
    /// thread, so decoding a large body cannot freeze an app. It may throw any error: a ``SimpleNetworkingError``
    /// arrives as it is, any other as ``SimpleNetworkingError/transformFailed(underlying:response:)``, at the error
    /// handlers and at an awaiting ``TransformedRequest/value()`` or ``response(on:)``. Otherwise the success handlers
    /// of the response run, then those of the value. Completion handlers still run once per execution.
    /// ``SimpleResponse/decode(_:decoder:)`` inside the step uses the client's decoder.
    ///
    /// ```swift
    /// api.get("/users/1")
    ///     .transform { try $0.decode(User.self) }
    ///     .on(success: { user in print(user.name) })
    ///     .on(error: { error in print(error) })
    ///     .execute(on: api)
    /// ```
    /// - Parameter transform: Turns a 2xx response into the value. A request has one transform step; a second call
    ///   replaces it, and the value handlers added for the first one are no longer called.
    /// - Returns: The same request, with handlers for the value.
    public func transform<Value: Sendable>(_ transform: @escaping @Sendable (SimpleResponse) throws -> Value)
        -> TransformedRequest<Value>
    {
        transformStep { response, _ in try transform(response) }
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
        transformStep { response, _ in try response.decode(type, decoder: decoder) }
    }

    /// Decodes the body of a final status outside 2xx into `type`, the API's own error body, such as
    /// `{"error": "..."}`: the error handlers and an awaiting call then get
    /// ``SimpleNetworkingError/errorBody(_:response:)`` instead of ``SimpleNetworkingError/unacceptableStatus(_:)``.
    /// A body that does not decode (or none) still gives ``SimpleNetworkingError/unacceptableStatus(_:)``.
    ///
    /// Status handlers and retries see the response as before; the decoding runs once the response has arrived,
    /// never on the handler queue or the main thread.
    ///
    /// ```swift
    /// do {
    ///     _ = try await api.post("/users").body(json: newUser).decodingErrors(APIError.self).response()
    /// } catch .errorBody(let body as APIError, let response) {
    ///     print(response.statusCode, body.error)
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The error body's type.
    ///   - decoder: The decoder; `nil` (the default) uses the client's ``SimpleNetworking/Configuration/decoder``.
    /// - Returns: This request.
    @discardableResult
    public func decodingErrors<Failure: Decodable & Sendable>(_ type: Failure.Type, decoder: JSONDecoder? = nil)
        -> Self
    {
        let step: @Sendable (SimpleResponse, SimpleNetworking) -> (any Sendable)? = { response, client in
            guard !response.body.isEmpty else { return nil }
            return try? (decoder ?? client.configuration.decoder).decode(Failure.self, from: response.body)
        }
        state.withLock { state in
            var transform = state.handlers.transform ?? Transform()
            transform.errorBody = step
            state.handlers.transform = transform
        }
        return self
    }

    /// Sets the value step, keeping the error-body step, and drops the value handlers of an earlier one.
    func transformStep<Value: Sendable>(
        _ step: @escaping @Sendable (SimpleResponse, SimpleNetworking) throws -> Value
    ) -> TransformedRequest<Value> {
        state.withLock { state in
            var transform = state.handlers.transform ?? Transform()
            transform.value = { response, client in TransformedValue(try step(response, client)) }
            state.handlers.transform = transform
            state.handlers.valueHandlers = []
        }
        return TransformedRequest(request: self)
    }
}

/// The value a transform step made of a response, on its way to the caller with the response
/// (``SimpleResponse/transformedValue``).
///
/// `@unchecked Sendable`: the value is made in the execution and handed over once, to the value handlers and to the
/// caller that awaits it, never shared while it changes. ``SimpleRequest/decode(_:decoder:on:)`` decodes any
/// `Decodable`, `Sendable` or not, as it always has. A class: a value of unknown type held in one reference, so that
/// the response fields that carry it are copied by plain reference counting (<doc:Performance>).
final class TransformedValue: @unchecked Sendable {
    let value: Any

    init(_ value: Any) {
        self.value = value
    }
}

/// A request whose 2xx responses are turned into a `Value` before its success handlers see them.
///
/// Made by ``SimpleRequest/transform(_:)``, ``SimpleRequest/decoding(_:decoder:)`` and
/// ``SimpleNetworking/request(for:method:)``, whose transform step is the endpoint's decoding. It is a view of the same
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
            state.handlers.valueHandlers.append { value in
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

    /// Decodes the body of a final status outside 2xx into `type`, as ``SimpleRequest/decodingErrors(_:decoder:)``
    /// does.
    /// - Parameters:
    ///   - type: The error body's type.
    ///   - decoder: The decoder; `nil` (the default) uses the client's ``SimpleNetworking/Configuration/decoder``.
    /// - Returns: This request.
    @discardableResult
    public func decodingErrors<Failure: Decodable & Sendable>(_ type: Failure.Type, decoder: JSONDecoder? = nil)
        -> Self
    {
        request.decodingErrors(type, decoder: decoder)
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
    /// let user = try await api.get("/users/1").decoding(User.self).value()
    /// ```
    /// - Returns: The value.
    /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/response(on:)`` describes, including what the transform
    ///   step threw (an error of its own as ``SimpleNetworkingError/transformFailed(underlying:response:)``).
    public func value() async throws(SimpleNetworkingError) -> Value {
        guard let value = try await request.response().transformedValue as? Value else {
            // Only when the transform step was replaced by one of another type while the request ran.
            throw .decodingFailed(
                type: String(describing: Value.self), reason: "the transform step made no value of this type",
                response: nil)
        }
        return value
    }

    /// Runs the request and returns its final response without the transform step: the raw response of an
    /// endpoint's request, its body not decoded into the endpoint's ``Endpoint/Response``.
    ///
    /// An error body still decodes as the request asked (``decodingErrors(_:decoder:)``, an endpoint's
    /// ``Endpoint/ErrorBody``); the success handlers of the response run, those of the value do not.
    ///
    /// ```swift
    /// let response = try await api.request(for: UserEndpoint.user(id: 1)).response()
    /// ```
    /// - Parameter client: The client to run on, or `nil` (the default) for the one the request is bound to.
    /// - Returns: The final response.
    /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/response(on:)`` describes.
    public func response(on client: SimpleNetworking? = nil) async throws(SimpleNetworkingError) -> SimpleResponse {
        let client = try request.client(given: client)
        // A value step of this execution alone, in place of the request's: nothing is decoded.
        let raw = SimpleRequest.Transform { _, _ in TransformedValue(RawResponse()) }
        guard let outcome = await request.runInCaller(on: client, valueStep: raw) else { throw .requestInProgress }
        return try outcome.get()
    }

    /// Runs the request and decodes its final response's body as `type` instead of with the transform step, as
    /// ``SimpleRequest/decode(_:decoder:on:)`` does: another view of an endpoint's answer.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder; `nil` (the default) uses the client's ``SimpleNetworking/Configuration/decoder``.
    ///   - client: The client to run on, or `nil` (the default) for the one the request is bound to.
    /// - Returns: The decoded value.
    /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/decode(_:decoder:on:)`` describes.
    public func decode<Decoded: Decodable>(
        _ type: Decoded.Type = Decoded.self, decoder: JSONDecoder? = nil, on client: SimpleNetworking? = nil
    ) async throws(SimpleNetworkingError) -> Decoded {
        try await request.decode(type, decoder: decoder, on: client)
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

/// The value of an execution that decodes nothing (``TransformedRequest/response(on:)``): no value handler takes it.
struct RawResponse: Sendable {}
