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
/// `maximumEventSize`.
///
/// One parser serves a whole event source: ``finish()`` ends one connection's stream (an incomplete event is
/// dropped), and the next connection's bytes go to the same parser, which keeps ``lastEventID`` and
/// ``reconnectionTime``.
package struct EventStreamParser: Sendable {
    /// The most bytes a line or an event's data may hold; see ``init(maximumEventSize:)``.
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
    package init(maximumEventSize: Int) {
        self.maximumEventSize = max(1, maximumEventSize)
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
        var index = start
        while index < chunk.count {
            let byte = chunk[index]
            guard byte == Self.lineFeed || byte == Self.carriageReturn else {
                index += 1
                continue
            }
            let line = UnsafeBufferPointer(rebasing: chunk[start..<index])
            if lineBuffer.isEmpty {
                guard line.count <= maximumEventSize else { throw .eventTooLarge(limit: maximumEventSize) }
                try process(line: line, onEvent: onEvent)
            } else {
                try bufferLinePart(line)
                try processBufferedLine(onEvent: onEvent)
            }
            index += 1
            if byte == Self.carriageReturn {
                if index < chunk.count {
                    if chunk[index] == Self.lineFeed { index += 1 }
                } else {
                    afterCarriageReturn = true
                }
            }
            start = index
        }
        if start < chunk.count {
            try bufferLinePart(UnsafeBufferPointer(rebasing: chunk[start...]))
        }
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
        try line.withUnsafeBufferPointer { (line) throws(SimpleNetworkingError) in
            try process(line: line, onEvent: onEvent)
        }
    }

    // MARK: - Fields

    private mutating func process(
        line: UnsafeBufferPointer<UInt8>, onEvent: (ServerSentEvent) -> Void
    ) throws(SimpleNetworkingError) {
        guard let first = line.first else { return dispatch(onEvent: onEvent) }
        if first == Self.colon { return }  // a comment
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
    }

    private mutating func dispatch(onEvent: (ServerSentEvent) -> Void) {
        committedID = pendingID
        defer {
            dataBuffer.removeAll(keepingCapacity: true)
            typeBuffer.removeAll(keepingCapacity: true)
            pendingRetry = nil
        }
        guard !dataBuffer.isEmpty else { return }
        let data = String(decoding: dataBuffer[..<(dataBuffer.count - 1)], as: UTF8.self)
        let type = typeBuffer.isEmpty ? "message" : String(decoding: typeBuffer, as: UTF8.self)
        onEvent(ServerSentEvent(id: pendingID, event: type, data: data, retry: pendingRetry))
    }

    private static func name(_ name: UnsafeBufferPointer<UInt8>, is field: StaticString) -> Bool {
        guard name.count == field.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: field.utf8Start, count: field.utf8CodeUnitCount)
        return name.elementsEqual(expected)
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
