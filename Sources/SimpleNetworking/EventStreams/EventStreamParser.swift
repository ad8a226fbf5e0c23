import Foundation

/// Reads the bytes of a `text/event-stream` body into events, exactly as the HTML standard's "event stream
/// interpretation" says, whatever the chunks the bytes arrive in.
///
/// - UTF-8 always (an invalid byte sequence becomes U+FFFD); one byte order mark at the very start of a stream is
///   dropped, a later one is text.
/// - Lines end in CRLF, LF or CR; a CR at the end of one chunk and an LF at the start of the next are one line end.
/// - A line starting with `:` is a comment. `name:value` is a field, with one leading space of the value removed; a
///   line without a colon is a field with an empty value. `data` appends its value and a line feed to the data,
///   `event` sets the type, `id` sets the last event ID unless its value holds NUL, `retry` sets the reconnection
///   time when its value is all ASCII digits; any other field is ignored.
/// - An empty line dispatches the event, unless its data is empty.
///
/// The parser works on bytes and keeps three buffers (the line being read, the data, the type) that it clears
/// keeping their capacity, so that an event costs no allocation beyond its own strings. Each buffer is bounded by
/// `maximumEventSize`. A line that arrives whole in one chunk is read where it lies, without a copy; line ends are
/// found with `memchr`, which reads many bytes at a time, not byte by byte; and the most common event, one `data`
/// line followed by the empty line in the same chunk, is made a string straight from the chunk, without passing
/// through the data buffer.
///
/// One parser serves a whole event source: ``finish()`` ends one connection's stream (an incomplete event is
/// dropped), and the next connection's bytes go to the same parser, which keeps ``lastEventID`` and
/// ``reconnectionTime``.
package struct EventStreamParser: Sendable {
    /// The most bytes a line or an event's data may hold; see ``init(maximumEventSize:lastEventID:)``.
    package let maximumEventSize: Int

    /// The reconnection time in milliseconds from the server's latest valid `retry` field; `nil` until it sends one.
    package private(set) var reconnectionTime: Int?

    /// The last event ID string, as the `Last-Event-ID` header of a reconnection sends it: the ID in force at the
    /// last empty line the server sent. Empty until the server sets one.
    package var lastEventID: String { committedID ?? "" }

    /// The last event ID at the last empty line; `nil` when none was ever set.
    private var committedID: String?
    /// The last event ID buffer: the latest valid `id` field, committed at the next empty line.
    private var pendingID: String?
    /// The reconnection time that a valid `retry` field of the current block carried.
    private var pendingRetry: Int?
    /// The bytes of a line whose end has not arrived yet.
    private var lineBuffer: [UInt8] = []
    /// The values of the current block's `data` fields, each followed by a line feed.
    private var dataBuffer: [UInt8] = []
    /// The value of the current block's latest `event` field.
    private var typeBuffer: [UInt8] = []
    /// How many bytes of a byte order mark have been seen at the start of the stream; `nil` once past the start.
    private var byteOrderMarkMatched: Int? = 0
    /// Whether the last byte was a CR, so that an LF right after it ends no further line.
    private var afterCarriageReturn = false
    /// Whether the stream passed the size limit: every later ``feed(_:onEvent:)`` throws until ``finish()``.
    private var exceededLimit = false

    /// Creates a parser for one event source.
    /// - Parameter maximumEventSize: The most bytes a single line (not counting its line end) or an event's data may
    ///   hold, counted as they arrive (before invalid UTF-8 is replaced); at least 1. A stream that passes it throws
    ///   ``SimpleNetworkingError/eventTooLarge(limit:)``, so no buffer grows beyond it.
    /// - Parameter lastEventID: The last event ID to start from, as a stream that resumes where an earlier one
    ///   stopped does (the `Last-Event-ID` its caller set); empty for none.
    package init(maximumEventSize: Int, lastEventID: String = "") {
        self.maximumEventSize = max(1, maximumEventSize)
        if !lastEventID.isEmpty {
            committedID = lastEventID
            pendingID = lastEventID
        }
    }

    /// Reads the next chunk of the stream, calling `onEvent` with each event it completes, in order.
    /// - Parameters:
    ///   - bytes: The next bytes of the body, in any chunking.
    ///   - onEvent: Called with each dispatched event.
    /// - Throws: ``SimpleNetworkingError/eventTooLarge(limit:)`` when a line or an event's data passes
    ///   ``maximumEventSize``; the events before that point have been delivered. The stream is then broken: every
    ///   later call throws the same until ``finish()``.
    package mutating func feed(
        _ bytes: some Collection<UInt8>, onEvent: (ServerSentEvent) -> Void
    ) throws(SimpleNetworkingError) {
        guard !exceededLimit else { throw .eventTooLarge(limit: maximumEventSize) }
        var failure: SimpleNetworkingError?
        let handled: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(SimpleNetworkingError) { try feed(buffer, onEvent: onEvent) } catch { failure = error }
        }
        if handled == nil {
            Array(bytes).withUnsafeBufferPointer { buffer in
                do throws(SimpleNetworkingError) { try feed(buffer, onEvent: onEvent) } catch { failure = error }
            }
        }
        if let failure {
            // Nothing of the broken stream is kept.
            exceededLimit = true
            lineBuffer = []
            dataBuffer = []
            typeBuffer = []
            throw failure
        }
    }

    /// Ends the current stream (the connection closed): an incomplete line and an event not yet dispatched are
    /// dropped, and so is an `id` not yet followed by an empty line. ``lastEventID`` and ``reconnectionTime`` stay,
    /// and the next bytes fed start a new stream, whose leading byte order mark is dropped again.
    package mutating func finish() {
        lineBuffer.removeAll(keepingCapacity: !exceededLimit)
        dataBuffer.removeAll(keepingCapacity: !exceededLimit)
        typeBuffer.removeAll(keepingCapacity: !exceededLimit)
        pendingID = committedID
        pendingRetry = nil
        byteOrderMarkMatched = 0
        afterCarriageReturn = false
        exceededLimit = false
    }

    /// The bytes the parser's buffers hold room for, for the tests of its bound.
    package var retainedCapacity: Int {
        lineBuffer.capacity + dataBuffer.capacity + typeBuffer.capacity
    }

    // MARK: - Lines

    private static let lineFeed: UInt8 = 0x0A
    private static let carriageReturn: UInt8 = 0x0D
    private static let colon: UInt8 = 0x3A
    private static let space: UInt8 = 0x20
    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    private mutating func feed(
        _ chunk: UnsafeBufferPointer<UInt8>, onEvent: (ServerSentEvent) -> Void
    ) throws(SimpleNetworkingError) {
        var start = 0
        if let matched = byteOrderMarkMatched {
            start = try skipByteOrderMark(chunk, matched: matched, onEvent: onEvent)
        }
        if afterCarriageReturn, start < chunk.count {
            afterCarriageReturn = false
            if chunk[start] == Self.lineFeed { start += 1 }
        }
        guard start < chunk.count, let base = chunk.baseAddress else { return }
        let end = chunk.count
        // The next CR at or after `start` (`end` when there is none): found once and kept until a line passes it, so
        // that a stream without CRs is searched for them once per chunk.
        var nextCarriageReturn = Self.find(Self.carriageReturn, in: base, from: start, to: end)
        while start < end {
            if nextCarriageReturn < start {
                nextCarriageReturn = Self.find(Self.carriageReturn, in: base, from: start, to: end)
            }
            var index = Self.find(Self.lineFeed, in: base, from: start, to: nextCarriageReturn)
            if index == end { break }
            var byte = chunk[index]
            let line = UnsafeBufferPointer(start: base + start, count: index - start)
            if lineBuffer.isEmpty {
                guard line.count <= maximumEventSize else { throw .eventTooLarge(limit: maximumEventSize) }
                // Where the next line starts, when this line's end is whole in the chunk.
                let next =
                    index
                    + (byte == Self.carriageReturn && index + 1 < end && chunk[index + 1] == Self.lineFeed ? 2 : 1)
                let emptyLineFollows =
                    next < end && (chunk[next] == Self.lineFeed || chunk[next] == Self.carriageReturn)
                if try process(line: line, emptyLineFollows: emptyLineFollows, onEvent: onEvent) {
                    // The empty line was read with this line: go on after its line end.
                    index = next
                    byte = chunk[index]
                }
            } else {
                try bufferLinePart(line)
                try processBufferedLine(onEvent: onEvent)
            }
            index += 1
            if byte == Self.carriageReturn {
                if index < end {
                    if chunk[index] == Self.lineFeed { index += 1 }
                } else {
                    afterCarriageReturn = true
                }
            }
            start = index
        }
        if start < end {
            try bufferLinePart(UnsafeBufferPointer(start: base + start, count: end - start))
        }
    }

    /// The index of the first `byte` in `base[from..<to]`, or `to` when there is none.
    private static func find(_ byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        guard from < to, let found = memchr(base + from, Int32(byte), to - from) else { return to }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    /// Drops the byte order mark at the start of a stream, also when it arrives across chunks.
    /// - Returns: Where the chunk's stream bytes start.
    private mutating func skipByteOrderMark(
        _ chunk: UnsafeBufferPointer<UInt8>, matched: Int, onEvent: (ServerSentEvent) -> Void
    ) throws(SimpleNetworkingError) -> Int {
        var matched = matched
        var index = 0
        while matched < Self.byteOrderMark.count, index < chunk.count, chunk[index] == Self.byteOrderMark[matched] {
            matched += 1
            index += 1
        }
        if matched == Self.byteOrderMark.count {
            byteOrderMarkMatched = nil
            return index
        }
        if index < chunk.count {
            // Not a byte order mark: the bytes that looked like its start are the stream's first bytes.
            byteOrderMarkMatched = nil
            if matched > 0 {
                try Self.byteOrderMark[..<matched].withUnsafeBufferPointer { (prefix) throws(SimpleNetworkingError) in
                    try bufferLinePart(prefix)
                }
                return index
            }
            return 0
        }
        byteOrderMarkMatched = matched
        return index
    }

    private mutating func bufferLinePart(_ part: UnsafeBufferPointer<UInt8>) throws(SimpleNetworkingError) {
        guard part.count <= maximumEventSize - lineBuffer.count else {
            throw .eventTooLarge(limit: maximumEventSize)
        }
        lineBuffer.append(contentsOf: part)
    }

    private mutating func processBufferedLine(onEvent: (ServerSentEvent) -> Void) throws(SimpleNetworkingError) {
        // Moved out of self while it is read, so that processing can change the other buffers; moved back after,
        // keeping its capacity.
        var line: [UInt8] = []
        swap(&line, &lineBuffer)
        defer {
            line.removeAll(keepingCapacity: true)
            swap(&line, &lineBuffer)
        }
        _ = try line.withUnsafeBufferPointer { (line) throws(SimpleNetworkingError) in
            try process(line: line, emptyLineFollows: false, onEvent: onEvent)
        }
    }

    // MARK: - Fields

    /// Reads one line.
    /// - Parameter emptyLineFollows: Whether the next line is empty and already in the chunk.
    /// - Returns: Whether the line was the block's only `data` line and its event has been dispatched with the empty
    ///   line that follows, which the caller then skips.
    private mutating func process(
        line: UnsafeBufferPointer<UInt8>, emptyLineFollows: Bool, onEvent: (ServerSentEvent) -> Void
    ) throws(SimpleNetworkingError) -> Bool {
        guard let first = line.first else {
            dispatch(onEvent: onEvent)
            return false
        }
        if first == Self.colon { return false }  // a comment
        let name: UnsafeBufferPointer<UInt8>
        var value: UnsafeBufferPointer<UInt8>
        if let colon = line.firstIndex(of: Self.colon) {
            name = UnsafeBufferPointer(rebasing: line[..<colon])
            value = UnsafeBufferPointer(rebasing: line[(colon + 1)...])
            if value.first == Self.space { value = UnsafeBufferPointer(rebasing: value.dropFirst()) }
        } else {
            name = line
            value = UnsafeBufferPointer(start: nil, count: 0)
        }
        if Self.name(name, is: "data") {
            guard value.count <= maximumEventSize - dataBuffer.count else {
                throw .eventTooLarge(limit: maximumEventSize)
            }
            if emptyLineFollows, dataBuffer.isEmpty {
                dispatch(onlyData: value, onEvent: onEvent)
                return true
            }
            dataBuffer.append(contentsOf: value)
            dataBuffer.append(Self.lineFeed)
        } else if Self.name(name, is: "event") {
            typeBuffer.removeAll(keepingCapacity: true)
            typeBuffer.append(contentsOf: value)
        } else if Self.name(name, is: "id") {
            if !value.contains(0) { pendingID = String(decoding: value, as: UTF8.self) }
        } else if Self.name(name, is: "retry") {
            if let milliseconds = Self.milliseconds(value) {
                reconnectionTime = milliseconds
                pendingRetry = milliseconds
            }
        }
        return false
    }

    /// Dispatches the block's event at an empty line.
    /// - Parameter onlyData: The value of the block's only `data` field, when it has not gone to the data buffer.
    private mutating func dispatch(onlyData: UnsafeBufferPointer<UInt8>? = nil, onEvent: (ServerSentEvent) -> Void) {
        committedID = pendingID
        let data: String?
        if let onlyData {
            data = String(decoding: onlyData, as: UTF8.self)
        } else if dataBuffer.isEmpty {
            data = nil
        } else {
            // Without the line feed after the last value.
            data = dataBuffer.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0.dropLast()), as: UTF8.self)
            }
            dataBuffer.removeAll(keepingCapacity: true)
        }
        if let data {
            let type = typeBuffer.isEmpty ? "message" : String(decoding: typeBuffer, as: UTF8.self)
            onEvent(ServerSentEvent(id: pendingID, event: type, data: data, retry: pendingRetry))
        }
        // Most events have no type: the check spares a call that is not free.
        if !typeBuffer.isEmpty { typeBuffer.removeAll(keepingCapacity: true) }
        pendingRetry = nil
    }

    private static func name(_ name: UnsafeBufferPointer<UInt8>, is field: StaticString) -> Bool {
        guard name.count == field.utf8CodeUnitCount else { return false }
        let expected = field.utf8Start
        for index in 0..<name.count where name[index] != expected[index] { return false }
        return true
    }

    /// A `retry` value in milliseconds: only ASCII digits, at least one; a number too large for `Int` is the
    /// largest `Int`.
    private static func milliseconds(_ value: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !value.isEmpty else { return nil }
        var result = 0
        for byte in value {
            guard (0x30...0x39).contains(byte) else { return nil }
            let (times, overflowTimes) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int(byte - 0x30))
            result = overflowTimes || overflowSum ? Int.max : sum
        }
        return result
    }
}
