import Foundation

// The stored entry format, version 1: an entry's head, as ``DiskCacheStorage`` keeps it in a `.head` file (the body
// is a file of its own, its raw bytes, named after the head's `bodyID`), and as ``MemoryCacheStorage`` counts its
// size. Integers are little-endian; every text is a `UInt32` count of bytes and then that many bytes of valid UTF-8.
//
//     offset  size  field
//     0       8     magic: 89 53 4E 43 0D 0A 1A 0A  ("\x89SNC\r\n\x1A\n": a file mangled as text no longer matches)
//     8       2     version: 1
//     10      2     reserved: 0
//     12      4     length of the whole head, which is also the file's size: at most 1 MiB
//     16      2     status code: 100-999
//     18      8     request time: the bits of a Float64, seconds since 2001-01-01 UTC (`Date`'s own reference, so a
//                   date reads back exactly); finite
//     26      8     response time: the same
//     34      8     body length in bytes: at most 2^48
//     42      8     body ID: which body file belongs to this head
//     50      text  method: 1-64 bytes, an RFC 9110 token
//             text  URL: 1-65536 bytes, no spaces or control characters
//             2     the number of `Vary` fields: at most 64; each of them:
//                   text  name: 1-256 bytes, a lowercase token, names in strictly increasing byte order
//                   1     1 when the stored request had the field, 0 when not
//                   text  value: at most 65536 bytes, no control character but tab (only when the byte above is 1)
//             2     the number of response header fields: at most 1024; each of them:
//                   text  name: 1-256 bytes, a token
//                   text  value: at most 65536 bytes, no control character but tab
//
// Nothing may follow the last field. A head that breaks any of these rules is refused as a whole: reading throws a
// ``CacheEntry/FormatError`` and never traps, whatever the bytes. Every head has exactly one encoding, so a head read
// back encodes to the same bytes. There is no checksum: a torn write cannot happen (a head is written to a new file
// that is renamed into place), a truncated or padded file fails the length check, and a byte changed inside a value
// is the file system's to catch.
extension CacheEntry {
    /// Why bytes are not a stored entry head (see the format in `CacheEntry+Format.swift`).
    package enum FormatError: Error, Sendable, Equatable {
        /// The bytes end before a field does.
        case truncated
        /// The bytes do not start with the format's magic number: not a head of this cache.
        case notAnEntry
        /// A version this library does not read.
        case unsupportedVersion(UInt16)
        /// The head's stated length is not its size, or bytes follow the last field.
        case lengthMismatch
        /// The head is larger than the format allows (1 MiB).
        case tooLarge
        /// A text is longer than its field allows.
        case fieldTooLong
        /// More `Vary` or header fields than the format allows.
        case tooManyFields
        /// A text is not valid UTF-8.
        case invalidText
        /// A field holds a value the format does not allow: a reserved field not 0, a status out of range, a date
        /// that is not finite, a method or field name that is not a token, a value with a control character.
        case invalidField(String)
    }

    /// The format's first eight bytes.
    static let formatMagic: [UInt8] = [0x89, 0x53, 0x4E, 0x43, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The version this library writes and reads.
    static let formatVersion: UInt16 = 1
    /// The largest head, in bytes.
    package static let maximumHeadLength = 1 << 20
    /// The largest body the format can describe, in bytes.
    static let maximumBodyLength = 1 << 48
    private static let maximumMethodLength = 64
    private static let maximumURLLength = 65536
    private static let maximumNameLength = 256
    private static let maximumValueLength = 65536
    private static let maximumVaryFields = 64
    private static let maximumHeaderFields = 1024

    /// The head in the stored entry format.
    /// - Returns: The bytes, which ``init(decodingHead:)`` reads back as this entry.
    /// - Throws: ``FormatError`` when a field breaks the format's rules (the same rules reading applies), or the
    ///   head would be larger than 1 MiB.
    package func encodedHead() throws(FormatError) -> [UInt8] {
        var writer = CacheFormatWriter()
        try encodeHead(into: &writer)
        return writer.bytes
    }

    /// The length of ``encodedHead()``, after the same checks, without making the bytes: what a memory cache
    /// charges for a head (`MemoryCacheStorage`). A head that replaces a stored one is checked only where it differs:
    /// a `304` changes few fields, and the stored head passed the same checks when it was stored.
    /// - Parameter checked: The stored entry this one replaces, if any: its identity and every header field equal to
    ///   one of its own at the same place are not checked again.
    /// - Returns: The number of bytes ``encodedHead()`` returns.
    /// - Throws: ``FormatError`` exactly when ``encodedHead()`` does, given that `checked` passed.
    package func encodedHeadLength(replacing checked: CacheEntry? = nil) throws(FormatError) -> Int {
        var writer = CacheFormatWriter(measuring: ())
        try encodeHead(into: &writer, checkedAlready: checked)
        return writer.count
    }

    /// Checks the fields against the format's rules (those of `checked` that are the same passed already), then
    /// writes the head with `writer`.
    private func encodeHead(into writer: inout CacheFormatWriter, checkedAlready checked: CacheEntry? = nil)
        throws(FormatError)
    {
        guard (100...999).contains(status) else { throw .invalidField("status") }
        guard bodyLength >= 0, bodyLength <= Self.maximumBodyLength else { throw .invalidField("body length") }
        guard requestTime.timeIntervalSinceReferenceDate.isFinite, responseTime.timeIntervalSinceReferenceDate.isFinite
        else { throw .invalidField("date") }
        guard variant.names.count <= Self.maximumVaryFields, headers.count <= Self.maximumHeaderFields else {
            throw .tooManyFields
        }
        if checked?.id != id {
            try Self.checkMethod(key.method)
            try Self.checkURL(key.url)
            var previous: String?
            for (name, value) in zip(variant.names, variant.values) {
                try Self.checkVaryName(name, after: previous)
                if let value { try Self.checkValue(value) }
                previous = name
            }
        }
        let checkedFields = checked?.headers.fields ?? []
        for (index, field) in headers.fields.enumerated()
        where index >= checkedFields.count || checkedFields[index] != field {
            try Self.checkName(field.name)
            try Self.checkValue(field.value)
        }

        writer.append(Self.formatMagic)
        writer.append(Self.formatVersion)
        writer.append(UInt16(0))
        writer.append(UInt32(0))
        writer.append(UInt16(status))
        writer.append(requestTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.append(responseTime.timeIntervalSinceReferenceDate.bitPattern)
        writer.append(UInt64(bodyLength))
        writer.append(bodyID)
        writer.append(text: key.method)
        writer.append(text: key.url)
        writer.append(UInt16(variant.names.count))
        writer.appendValues(of: variant)
        writer.append(UInt16(headers.count))
        for field in headers.fields {
            writer.append(text: field.name)
            writer.append(text: field.value)
        }
        guard writer.count <= Self.maximumHeadLength else { throw .tooLarge }
        writer.patch(UInt32(writer.count), at: 12)
    }

    /// Reads a head in the stored entry format from untrusted bytes.
    /// - Parameter bytes: The whole head: a `.head` file's content.
    /// - Throws: ``FormatError`` when the bytes are not exactly one head that follows the format's rules.
    package init(decodingHead bytes: [UInt8]) throws(FormatError) {
        guard bytes.count <= Self.maximumHeadLength else { throw .tooLarge }
        var reader = CacheFormatReader(bytes)
        guard try reader.read(count: Self.formatMagic.count).elementsEqual(Self.formatMagic) else {
            throw .notAnEntry
        }
        let version = try reader.read(UInt16.self)
        guard version == Self.formatVersion else { throw .unsupportedVersion(version) }
        guard try reader.read(UInt16.self) == 0 else { throw .invalidField("reserved") }
        guard try reader.read(UInt32.self) == bytes.count else { throw .lengthMismatch }
        let status = Int(try reader.read(UInt16.self))
        guard (100...999).contains(status) else { throw .invalidField("status") }
        let requestTime = Double(bitPattern: try reader.read(UInt64.self))
        let responseTime = Double(bitPattern: try reader.read(UInt64.self))
        guard requestTime.isFinite, responseTime.isFinite else { throw .invalidField("date") }
        let bodyLength = try reader.read(UInt64.self)
        guard bodyLength <= Self.maximumBodyLength else { throw .invalidField("body length") }
        let bodyID = try reader.read(UInt64.self)
        let method = try reader.readText(maximum: Self.maximumMethodLength)
        try Self.checkMethod(method)
        let url = try reader.readText(maximum: Self.maximumURLLength)
        try Self.checkURL(url)

        let varyCount = Int(try reader.read(UInt16.self))
        guard varyCount <= Self.maximumVaryFields else { throw .tooManyFields }
        var vary: [String: String?] = [:]
        var previous: String?
        for _ in 0..<varyCount {
            let name = try reader.readText(maximum: Self.maximumNameLength)
            try Self.checkVaryName(name, after: previous)
            previous = name
            switch try reader.read(UInt8.self) {
            case 0:
                vary[name] = .some(nil)
            case 1:
                let value = try reader.readText(maximum: Self.maximumValueLength)
                try Self.checkValue(value)
                vary[name] = value
            default:
                throw .invalidField("vary presence")
            }
        }

        let headerCount = Int(try reader.read(UInt16.self))
        guard headerCount <= Self.maximumHeaderFields else { throw .tooManyFields }
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(headerCount)
        for _ in 0..<headerCount {
            let name = try reader.readText(maximum: Self.maximumNameLength)
            try Self.checkName(name)
            let value = try reader.readText(maximum: Self.maximumValueLength)
            try Self.checkValue(value)
            fields.append(HTTPHeaders.Field(name: name, value: value))
        }
        guard reader.isAtEnd else { throw .lengthMismatch }

        self.init(
            key: Key(method: method, url: url), variant: Variant(vary), status: status, headers: HTTPHeaders(fields),
            requestTime: Date(timeIntervalSinceReferenceDate: requestTime),
            responseTime: Date(timeIntervalSinceReferenceDate: responseTime), bodyLength: Int(bodyLength),
            bodyID: bodyID)
    }

    /// The bytes that name an entry's identity, which its file name is a digest of (``CacheFileName``): the
    /// method, URL and `Vary` fields, in the format's encoding, after a tag of their own.
    var identityBytes: [UInt8] {
        var writer = CacheFormatWriter()
        writer.append(Array("SNC id 1".utf8))
        writer.append(text: key.method)
        writer.append(text: key.url)
        writer.append(UInt32(variant.names.count))
        writer.appendValues(of: variant)
        return writer.bytes
    }

    private static func checkMethod(_ method: String) throws(FormatError) {
        guard method.utf8.count <= maximumMethodLength else { throw .fieldTooLong }
        guard isToken(method) else { throw .invalidField("method") }
    }

    private static func checkURL(_ url: String) throws(FormatError) {
        guard url.utf8.count <= maximumURLLength else { throw .fieldTooLong }
        guard !url.isEmpty, allBytes(of: url, satisfy: { $0 > 0x20 && $0 != 0x7F }) else {
            throw .invalidField("url")
        }
    }

    private static func checkName(_ name: String) throws(FormatError) {
        guard name.utf8.count <= maximumNameLength else { throw .fieldTooLong }
        guard isToken(name) else { throw .invalidField("field name") }
    }

    private static func checkVaryName(_ name: String, after previous: String?) throws(FormatError) {
        try checkName(name)
        guard !name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw .invalidField("vary name not lowercase")
        }
        if let previous, !previous.utf8.lexicographicallyPrecedes(name.utf8) {
            throw .invalidField("vary names out of order")
        }
    }

    private static func checkValue(_ value: String) throws(FormatError) {
        guard value.utf8.count <= maximumValueLength else { throw .fieldTooLong }
        guard allBytes(of: value, satisfy: { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F }) else {
            throw .invalidField("field value")
        }
    }

    /// Whether `text` is an RFC 9110 token (section 5.6.2).
    private static func isToken(_ text: String) -> Bool {
        let tokenBytes = tokenBytes
        return !text.isEmpty && allBytes(of: text, satisfy: { tokenBytes.contains($0) })
    }

    /// Whether every UTF-8 byte of `text` satisfies `predicate`, read from the string's own storage: every field of
    /// a head is checked each time it is stored or charged for (``encodedHeadLength(replacing:)``).
    private static func allBytes(of text: String, satisfy predicate: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? text.utf8.allSatisfy(predicate)
    }

    private static let tokenBytes = ByteSet(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
}

extension CacheFormatWriter {
    /// Each name of `variant` and its value: `1` and the value, or `0` for a field the request lacked.
    mutating func appendValues(of variant: CacheEntry.Variant) {
        for (name, value) in zip(variant.names, variant.values) {
            append(text: name)
            if let value {
                append(UInt8(1))
                append(text: value)
            } else {
                append(UInt8(0))
            }
        }
    }
}
