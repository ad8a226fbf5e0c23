import Foundation

/// The server-sent events of a response, as they arrive: ``SimpleRequest/events()``.
public struct EventStream: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = ServerSentEvent
    /// What iterating can throw.
    public typealias Failure = SimpleNetworkingError

    let request: SimpleRequest

    /// Starts nothing yet: the request runs when the first event is asked for.
    /// - Returns: An iterator over the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(session: EventStreamSession(request: request))
    }

    /// Reads the events, connecting and reconnecting as needed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What iterating can throw.
        public typealias Failure = SimpleNetworkingError

        let session: EventStreamSession

        /// The next event, waiting for it to arrive.
        /// - Returns: The event, or `nil` once the stream has ended.
        /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/events()`` describes.
        public mutating func next() async throws(SimpleNetworkingError) -> ServerSentEvent? {
            try await session.next()
        }
    }
}

/// The server-sent events of a response, each one's data decoded: ``SimpleRequest/events(decoding:until:)``.
public struct DecodedEventStream<Value: Decodable>: AsyncSequence, Sendable {
    /// A decoded event.
    public typealias Element = Value
    /// What iterating can throw.
    public typealias Failure = SimpleNetworkingError

    /// The same events with their types and IDs, of which this sequence keeps the values.
    let events: DecodedEvents<Value>

    /// Starts nothing yet: the request runs when the first value is asked for.
    /// - Returns: An iterator over the decoded values.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: events.makeAsyncIterator())
    }

    /// Reads and decodes the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What iterating can throw.
        public typealias Failure = SimpleNetworkingError

        var events: DecodedEvents<Value>.AsyncIterator

        /// The next event's data, decoded, waiting for it to arrive.
        /// - Returns: The value, or `nil` once the stream has ended or sent the sentinel.
        /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/events(decoding:until:)`` describes.
        public mutating func next() async throws(SimpleNetworkingError) -> Value? {
            try await events.next()?.value
        }
    }
}

/// A server-sent event whose data was decoded: the value, with the event's type and ID, as
/// ``SimpleRequest/decodedEvents(of:until:)`` yields them.
///
/// ```swift
/// for try await event in api.post("/chat").body(json: question).decodedEvents(of: Token.self) {
///     if event.type == "delta" { print(event.value.text, terminator: "") }
/// }
/// ```
public struct DecodedEvent<Value> {
    /// The event's data, decoded.
    public var value: Value
    /// The event's type, from its `event` field; `"message"` when the event has none or an empty one
    /// (``ServerSentEvent/event``).
    public var type: String
    /// The last event ID in force when the event was dispatched (``ServerSentEvent/id``); `nil` when none was set.
    public var id: String?

    /// Creates a decoded event, for example for a test that compares what a stream yields.
    /// - Parameters:
    ///   - value: The decoded data.
    ///   - type: The event type; `"message"` by default.
    ///   - id: The last event ID in force; `nil` (the default) when none was set.
    public init(value: Value, type: String = "message", id: String? = nil) {
        self.value = value
        self.type = type
        self.id = id
    }
}

extension DecodedEvent: Sendable where Value: Sendable {}
extension DecodedEvent: Equatable where Value: Equatable {}
extension DecodedEvent: Hashable where Value: Hashable {}

/// The server-sent events of a response, each one's data decoded and kept with the event's type and ID:
/// ``SimpleRequest/decodedEvents(of:until:)``.
public struct DecodedEvents<Value: Decodable>: AsyncSequence, Sendable {
    /// A decoded event, with its type and ID.
    public typealias Element = DecodedEvent<Value>
    /// What iterating can throw.
    public typealias Failure = SimpleNetworkingError

    let request: SimpleRequest
    let sentinel: String?

    /// Starts nothing yet: the request runs when the first event is asked for.
    /// - Returns: An iterator over the decoded events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(session: EventStreamSession(request: request), request: request, sentinel: sentinel)
    }

    /// Reads and decodes the events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What iterating can throw.
        public typealias Failure = SimpleNetworkingError

        let session: EventStreamSession
        let request: SimpleRequest
        let sentinel: String?

        /// The next event, its data decoded, waiting for it to arrive.
        /// - Returns: The event, or `nil` once the stream has ended or sent the sentinel.
        /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/decodedEvents(of:until:)`` describes.
        public mutating func next() async throws(SimpleNetworkingError) -> DecodedEvent<Value>? {
            try await session.nextDecoded(Value.self, request: request, sentinel: sentinel)
        }
    }
}

extension EventStreamSession {
    /// The next event with its data decoded as `type` with the client's decoder; `nil` once the stream ended or sent
    /// `sentinel`, which closes it. Data that does not decode closes the stream and throws `decodingFailed`.
    func nextDecoded<Value: Decodable>(
        _ type: Value.Type, request: SimpleRequest, sentinel: String?
    ) async throws(SimpleNetworkingError) -> DecodedEvent<Value>? {
        guard let event = try await next() else { return nil }
        if let sentinel, event.data == sentinel {
            close()
            return nil
        }
        let decoder = request.client?.configuration.decoder ?? JSONDecoder()
        do {
            let value = try decoder.decode(Value.self, from: Data(event.data.utf8))
            return DecodedEvent(value: value, type: event.event, id: event.id)
        } catch {
            let failure = SimpleNetworkingError.decodingFailed(
                type: String(describing: Value.self), reason: String(describing: error), response: head)
            close(reason: failure)
            throw failure
        }
    }
}
