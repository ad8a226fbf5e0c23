import FuzzHarness
@_spi(Fuzzing) import SimpleNetworking

/// The event-stream parser (through `ServerSentEvent.parse(chunks:maximumEventSize:)`, SPI) on any body.
///
/// Invariant: no trap; the same events, size-limit error, reconnection time and last event ID whatever the chunking
/// (the body whole, cut in two at one position, and cut every few bytes); bounded memory: no event's data, type or
/// id (the default type `message` apart) holds more characters than the limit allows (one per byte at most, as invalid UTF-8 becomes one U+FFFD per
/// maximal subpart), and the parser's buffers never hold room for much more than the limit; and no event without
/// the six bytes of a `data` line and an empty line.
///
/// Input: byte 0 chooses the maximum event size (its low 7 bits plus 1; 64 KiB when its top bit is set), bytes 1-2
/// the position of the cut (little-endian, modulo the body's length plus 1), byte 3 the size of the small chunks
/// (1 to 16); the rest is the body.
@main
enum FuzzEventStream: FuzzTarget {
    static func check(_ input: FuzzInput) {
        let header = Array(input.bytes.prefix(4)) + Array(repeating: 0, count: max(0, 4 - input.bytes.count))
        let body = Array(input.bytes.dropFirst(4))
        let limit = header[0] & 0x80 != 0 ? 64 * 1024 : Int(header[0] & 0x7F) + 1
        let cut = (Int(header[1]) | Int(header[2]) << 8) % (body.count + 1)
        let step = Int(header[3] % 16) + 1

        let whole = ServerSentEvent.parse(chunks: [body[...]], maximumEventSize: limit)
        let halves = ServerSentEvent.parse(chunks: [body[..<cut], body[cut...]], maximumEventSize: limit)
        let pieces = ServerSentEvent.parse(
            chunks: stride(from: 0, to: body.count, by: step).map { body[$0..<min($0 + step, body.count)] },
            maximumEventSize: limit)
        Fuzzer.require(halves == whole, "the same result cut at \(cut): \(halves) against \(whole)")
        Fuzzer.require(pieces == whole, "the same result in chunks of \(step): \(pieces) against \(whole)")

        for event in whole.events {
            Fuzzer.require(
                event.data.unicodeScalars.count <= limit,
                "an event's data fits the limit of \(limit): \(event.data.unicodeScalars.count) characters")
            Fuzzer.require(
                event.event == "message" || event.event.unicodeScalars.count <= limit, "an event's type fits the limit")
            Fuzzer.require((event.id?.unicodeScalars.count ?? 0) <= limit, "an event's id fits the limit")
        }
        Fuzzer.require(whole.events.count * 6 <= body.count, "each event takes at least 6 bytes")
        let bound = 3 * (2 * (limit + 1) + 64)
        for result in [whole, halves, pieces] {
            Fuzzer.require(
                result.largestRetainedCapacity <= bound,
                "the buffers stay bounded: \(result.largestRetainedCapacity) bytes for a limit of \(limit)")
        }
    }
}
