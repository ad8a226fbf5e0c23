/// Appends the little-endian integers and length-prefixed strings of the stored entry format
/// (``CacheEntry/encodedHead()``), or, made with ``init(measuring:)``, only counts them
/// (``CacheEntry/encodedHeadLength(replacing:)``): one writer, so that the length and the bytes cannot disagree.
struct CacheFormatWriter {
    private(set) var bytes: [UInt8] = []
    /// The number of bytes written so far: `bytes.count`, or what it would be when only measuring.
    private(set) var count = 0
    /// Whether the writer only counts.
    private let isMeasuring: Bool

    init(capacity: Int = 256) {
        isMeasuring = false
        bytes.reserveCapacity(capacity)
    }

    /// A writer that keeps no bytes and only counts them.
    init(measuring: Void) {
        isMeasuring = true
    }

    mutating func append(_ raw: [UInt8]) {
        count += raw.count
        if !isMeasuring { bytes.append(contentsOf: raw) }
    }

    mutating func append<Integer: FixedWidthInteger & UnsignedInteger>(_ value: Integer) {
        count += Integer.bitWidth / 8
        guard !isMeasuring else { return }
        var remaining = value
        for _ in 0..<(Integer.bitWidth / 8) {
            bytes.append(UInt8(truncatingIfNeeded: remaining))
            remaining >>= 8
        }
    }

    /// The text's UTF-8 bytes after their count, as a `UInt32`.
    mutating func append(text: String) {
        let length = text.utf8.count
        append(UInt32(truncatingIfNeeded: length))
        count += length
        if !isMeasuring { bytes.append(contentsOf: text.utf8) }
    }

    /// Writes `value` at `offset`, over bytes appended before (a length known only at the end).
    mutating func patch(_ value: UInt32, at offset: Int) {
        guard !isMeasuring else { return }
        var remaining = value
        for index in offset..<(offset + 4) {
            bytes[index] = UInt8(truncatingIfNeeded: remaining)
            remaining >>= 8
        }
    }
}

/// Reads what ``CacheFormatWriter`` writes from untrusted bytes: every read checks that the bytes are there, and
/// throws ``CacheEntry/FormatError/truncated`` when they are not, so that no input can read past its end.
struct CacheFormatReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == bytes.count }

    mutating func read(count: Int) throws(CacheEntry.FormatError) -> ArraySlice<UInt8> {
        guard count >= 0, bytes.count - offset >= count else { throw .truncated }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    mutating func read<Integer: FixedWidthInteger & UnsignedInteger>(
        _: Integer.Type
    ) throws(CacheEntry.FormatError) -> Integer {
        let slice = try read(count: Integer.bitWidth / 8)
        var value: Integer = 0
        for byte in slice.reversed() { value = value << 8 | Integer(byte) }
        return value
    }

    /// A string of at most `maximum` UTF-8 bytes after its `UInt32` count; throws when the count is larger, the
    /// bytes run out, or they are not valid UTF-8.
    mutating func readText(maximum: Int) throws(CacheEntry.FormatError) -> String {
        let count = try read(UInt32.self)
        guard count <= maximum else { throw .fieldTooLong }
        let slice = try read(count: Int(count))
        // Invalid UTF-8 becomes U+FFFD on decoding, so the bytes of the text then differ from the input.
        let text = String(decoding: slice, as: UTF8.self)
        guard text.utf8.elementsEqual(slice) else { throw .invalidText }
        return text
    }
}
