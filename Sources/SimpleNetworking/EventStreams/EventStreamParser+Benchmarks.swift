import Foundation

// The entry to the event-stream parser for the benchmarks of `Benchmarks/` only: SPI, not part of the library's API.
extension ServerSentEvent {
    /// The parser the library runs on event-stream responses, fed piece by piece as a response stream's pieces
    /// arrive, for the benchmark that compares it with reading the body alone.
    @_spi(Benchmarks)
    public struct ChunkParser: Sendable {
        private var parser: EventStreamParser

        /// Creates a parser for one stream.
        /// - Parameter maximumEventSize: The most bytes a line or an event's data may hold.
        public init(maximumEventSize: Int) {
            parser = EventStreamParser(maximumEventSize: maximumEventSize)
        }

        /// Reads the next piece of the body, calling `onEvent` with each event it completes, in order.
        /// - Parameters:
        ///   - piece: The next bytes of the body, as ``SimpleRequest/chunks(bufferSize:)`` gives them.
        ///   - onEvent: Called with each dispatched event.
        /// - Throws: ``SimpleNetworkingError/eventTooLarge(limit:)`` when a line or an event's data passes the
        ///   limit.
        public mutating func feed(_ piece: Data, onEvent: (ServerSentEvent) -> Void) throws(SimpleNetworkingError) {
            try parser.feed(piece, onEvent: onEvent)
        }

        /// Ends the stream: an incomplete event is dropped.
        public mutating func finish() {
            parser.finish()
        }
    }
}
