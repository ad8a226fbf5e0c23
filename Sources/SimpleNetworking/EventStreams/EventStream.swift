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

    let request: SimpleRequest
    let sentinel: String?

    /// Starts nothing yet: the request runs when the first value is asked for.
    /// - Returns: An iterator over the decoded values.
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

        /// The next event's data, decoded, waiting for it to arrive.
        /// - Returns: The value, or `nil` once the stream has ended or sent the sentinel.
        /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/events(decoding:until:)`` describes.
        public mutating func next() async throws(SimpleNetworkingError) -> Value? {
            guard let event = try await session.next() else { return nil }
            if let sentinel, event.data == sentinel {
                session.close()
                return nil
            }
            let decoder = request.client?.configuration.decoder ?? JSONDecoder()
            do {
                return try decoder.decode(Value.self, from: Data(event.data.utf8))
            } catch {
                let head = session.head
                session.close()
                throw .decodingFailed(
                    type: String(describing: Value.self), reason: String(describing: error), response: head)
            }
        }
    }
}
