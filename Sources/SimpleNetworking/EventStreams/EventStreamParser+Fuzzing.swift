// The entry to the event-stream parser for the fuzz targets of `FuzzTesting/` only: SPI, not part of the library's
// API.
extension ServerSentEvent {
    /// What the event-stream parser read from one stream.
    @_spi(Fuzzing)
    public struct ParsedStream: Sendable, Equatable {
        /// The events dispatched, in order.
        public var events: [ServerSentEvent]
        /// Whether the stream stopped with ``SimpleNetworkingError/eventTooLarge(limit:)``.
        public var exceededLimit: Bool
        /// The reconnection time in milliseconds of the last valid `retry` field; `nil` when there was none.
        public var reconnectionTime: Int?
        /// The last event ID a reconnection would send; empty when none was set.
        public var lastEventID: String
        /// The most bytes the parser's buffers held room for after any chunk.
        public var largestRetainedCapacity: Int

        /// Whether two results hold the same events, error, reconnection time and last event ID (the capacity
        /// apart, which depends on the chunking).
        public static func == (lhs: ParsedStream, rhs: ParsedStream) -> Bool {
            lhs.events == rhs.events && lhs.exceededLimit == rhs.exceededLimit
                && lhs.reconnectionTime == rhs.reconnectionTime && lhs.lastEventID == rhs.lastEventID
        }
    }

    /// Reads `chunks` as one stream's body, in order, with the parser the library runs on event-stream responses,
    /// then ends the stream.
    /// - Parameters:
    ///   - chunks: The body's bytes, in the chunks they arrive in.
    ///   - maximumEventSize: The most bytes a line or an event's data may hold.
    /// - Returns: The events, and whether the stream passed the limit.
    @_spi(Fuzzing)
    public static func parse(chunks: [ArraySlice<UInt8>], maximumEventSize: Int) -> ParsedStream {
        var parser = EventStreamParser(maximumEventSize: maximumEventSize)
        var events: [ServerSentEvent] = []
        var exceededLimit = false
        var largest = 0
        for chunk in chunks {
            do throws(SimpleNetworkingError) {
                try parser.feed(chunk) { events.append($0) }
            } catch {
                exceededLimit = true
            }
            largest = max(largest, parser.retainedCapacity)
            if exceededLimit { break }
        }
        parser.finish()
        return ParsedStream(
            events: events, exceededLimit: exceededLimit, reconnectionTime: parser.reconnectionTime,
            lastEventID: parser.lastEventID, largestRetainedCapacity: largest)
    }
}
