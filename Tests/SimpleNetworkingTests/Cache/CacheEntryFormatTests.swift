import Foundation
import SimpleNetworking
import Testing

/// A head in the stored entry format written field by field, apart from the library's encoder, so that a test can
/// break any one field.
struct HeadBytes {
    var magic: [UInt8] = [0x89, 0x53, 0x4E, 0x43, 0x0D, 0x0A, 0x1A, 0x0A]
    var version: UInt16 = 1
    var reserved: UInt16 = 0
    /// `nil`: the real length.
    var length: UInt32?
    var status: UInt16 = 200
    var requestTime = 0.0
    var responseTime = 1.0
    var bodyLength: UInt64 = 3
    var bodyID: UInt64 = 42
    var method: [UInt8] = Array("GET".utf8)
    var url: [UInt8] = Array("https://example.com/a".utf8)
    /// Name, presence byte, value (written only when the presence byte is 1).
    var vary: [([UInt8], UInt8, [UInt8])] = [(Array("accept".utf8), 1, Array("text/html".utf8))]
    var varyCount: UInt16?
    var headers: [([UInt8], [UInt8])] = [(Array("ETag".utf8), Array("\"x\"".utf8))]
    var headerCount: UInt16?
    var trailing: [UInt8] = []

    var bytes: [UInt8] {
        var out: [UInt8] = []
        func int<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        func text(_ bytes: [UInt8]) {
            int(UInt32(bytes.count))
            out += bytes
        }
        out += magic
        int(version)
        int(reserved)
        int(UInt32(0))
        int(status)
        int(requestTime.bitPattern)
        int(responseTime.bitPattern)
        int(bodyLength)
        int(bodyID)
        text(method)
        text(url)
        int(varyCount ?? UInt16(vary.count))
        for (name, presence, value) in vary {
            text(name)
            out.append(presence)
            if presence == 1 { text(value) }
        }
        int(headerCount ?? UInt16(headers.count))
        for (name, value) in headers {
            text(name)
            text(value)
        }
        out += trailing
        let total = length ?? UInt32(out.count)
        withUnsafeBytes(of: total.littleEndian) { out.replaceSubrange(12..<16, with: $0) }
        return out
    }

    func changing(_ change: (inout HeadBytes) -> Void) -> HeadBytes {
        var copy = self
        change(&copy)
        return copy
    }
}

/// A table row: its name is all a test run prints of it.
struct Named<Value: Sendable>: Sendable, CustomTestStringConvertible {
    var name: String
    var value: Value
    var testDescription: String { name }

    init(_ name: String, _ value: Value) {
        self.name = name
        self.value = value
    }

    init<First, Second>(_ name: String, _ first: First, _ second: Second) where Value == (First, Second) {
        self.init(name, (first, second))
    }
}

@Suite("Cache entry format")
struct CacheEntryFormatTests {
    static let roundTrips: [Named<CacheEntry>] = [
        Named("no Vary, common headers", cacheEntry()),
        Named(
            "two Vary fields, one absent from the request",
            cacheEntry(vary: ["Accept-Encoding": "gzip", "Accept-Language": nil])
        ),
        Named(
            "repeated and non-ASCII header values",
            cacheEntry(
                headers: HTTPHeaders([
                    .init(name: "Set-Cookie", value: "a=1"), .init(name: "Set-Cookie", value: "b=2"),
                    .init(name: "X-Title", value: "caf\u{E9} \u{1F600}\tend"), .init(name: "X-Empty", value: ""),
                ]))
        ),
        Named("no headers, status 304", cacheEntry(headers: [:], status: 304)),
        Named("URL with query and percent-encoding", cacheEntry("https://h.example/p%20q?a=1&b=%2F..%2F")),
    ]

    @Test("A head reads back as the same entry, and encodes to the same bytes again", arguments: roundTrips)
    func roundTrip(_ row: Named<CacheEntry>) throws {
        let entry = row.value
        let bytes = try entry.encodedHead()
        let decoded = try CacheEntry(decodingHead: bytes)
        #expect(decoded == entry)
        #expect(decoded.varyValues == entry.varyValues)
        #expect(try decoded.encodedHead() == bytes)
        #expect(try entry.encodedHeadLength() == bytes.count)
    }

    @Test("Dates keep every bit; names of Vary fields are kept lowercased")
    func exactDates() throws {
        let entry = CacheEntry(
            key: cacheKey("https://example.com/"), varyValues: ["ACCEPT": "x"], status: 200, headers: [:],
            requestTime: Date(timeIntervalSince1970: 1_750_000_000.123_456_789),
            responseTime: Date(timeIntervalSinceReferenceDate: -1e12))
        let decoded = try CacheEntry(decodingHead: entry.encodedHead())
        #expect(decoded.requestTime == entry.requestTime)
        #expect(decoded.responseTime == entry.responseTime)
        #expect(decoded.varyValues == ["accept": "x"])
    }

    @Test("The hand-written head is read as the builder describes it")
    func handWritten() throws {
        let entry = try CacheEntry(decodingHead: HeadBytes().bytes)
        #expect(entry.key == CacheEntry.Key(method: "GET", url: "https://example.com/a"))
        #expect(entry.varyValues == ["accept": "text/html"])
        #expect(entry.headers == ["ETag": "\"x\""])
        #expect(entry.status == 200 && entry.bodyLength == 3 && entry.bodyID == 42)
        #expect(entry.requestTime == Date(timeIntervalSinceReferenceDate: 0))
        #expect(try entry.encodedHead() == HeadBytes().bytes)
    }

    static let refusals: [Named<([UInt8], CacheEntry.FormatError)>] = {
        let valid = HeadBytes()
        let invalidUTF8: [UInt8] = [0x61, 0xC3, 0x28]
        return [
            Named("empty", [], .truncated),
            Named("magic only", Array(valid.bytes.prefix(8)), .truncated),
            Named("another magic", valid.changing { $0.magic[1] = 0x54 }.bytes, .notAnEntry),
            Named("text file", Array("GET https://example.com/ HTTP/1.1\r\n\r\n".utf8), .notAnEntry),
            Named("version 2", valid.changing { $0.version = 2 }.bytes, .unsupportedVersion(2)),
            Named("reserved field set", valid.changing { $0.reserved = 1 }.bytes, .invalidField("reserved")),
            Named(
                "stated length too long", valid.changing { $0.length = UInt32(valid.bytes.count + 1) }.bytes,
                .lengthMismatch),
            Named("a byte after the last field", valid.changing { $0.trailing = [0] }.bytes, .lengthMismatch),
            Named("status 99", valid.changing { $0.status = 99 }.bytes, .invalidField("status")),
            Named("status 1000", valid.changing { $0.status = 1000 }.bytes, .invalidField("status")),
            Named("request time NaN", valid.changing { $0.requestTime = .nan }.bytes, .invalidField("date")),
            Named(
                "response time infinite", valid.changing { $0.responseTime = .infinity }.bytes, .invalidField("date")),
            Named(
                "body length past 2^48", valid.changing { $0.bodyLength = 1 << 49 }.bytes, .invalidField("body length")),
            Named("empty method", valid.changing { $0.method = [] }.bytes, .invalidField("method")),
            Named(
                "method with a slash", valid.changing { $0.method = Array("../..".utf8) }.bytes, .invalidField("method")
            ),
            Named(
                "method too long", valid.changing { $0.method = Array(repeating: 0x41, count: 65) }.bytes, .fieldTooLong
            ),
            Named(
                "URL with a space", valid.changing { $0.url = Array("https://e.com/a b".utf8) }.bytes,
                .invalidField("url")),
            Named(
                "URL with NUL", valid.changing { $0.url = Array("https://e.com/\0".utf8) }.bytes, .invalidField("url")),
            Named("URL not UTF-8", valid.changing { $0.url = invalidUTF8 }.bytes, .invalidText),
            Named(
                "URL count past the end", valid.changing { $0.url = Array(repeating: 0x61, count: 70_000) }.bytes,
                .fieldTooLong),
            Named(
                "Vary name uppercase", valid.changing { $0.vary[0].0 = Array("Accept".utf8) }.bytes,
                .invalidField("vary name not lowercase")),
            Named(
                "Vary names out of order",
                valid.changing { $0.vary = [(Array("b".utf8), 0, []), (Array("a".utf8), 0, [])] }.bytes,
                .invalidField("vary names out of order")
            ),
            Named(
                "Vary name twice",
                valid.changing { $0.vary = [(Array("a".utf8), 0, []), (Array("a".utf8), 0, [])] }.bytes,
                .invalidField("vary names out of order")
            ),
            Named("Vary presence 2", valid.changing { $0.vary[0].1 = 2 }.bytes, .invalidField("vary presence")),
            Named(
                "Vary value with LF", valid.changing { $0.vary[0].2 = Array("a\nb".utf8) }.bytes,
                .invalidField("field value")),
            Named("65 Vary fields", valid.changing { $0.varyCount = 65 }.bytes, .tooManyFields),
            Named(
                "header name with a colon", valid.changing { $0.headers[0].0 = Array("ETag:".utf8) }.bytes,
                .invalidField("field name")),
            Named(
                "header value with CR LF", valid.changing { $0.headers[0].1 = Array("a\r\nX-Injected: 1".utf8) }.bytes,
                .invalidField("field value")),
            Named(
                "header value with DEL", valid.changing { $0.headers[0].1 = [0x7F] }.bytes, .invalidField("field value")
            ),
            Named("header value not UTF-8", valid.changing { $0.headers[0].1 = invalidUTF8 }.bytes, .invalidText),
            Named("header count past the fields", valid.changing { $0.headerCount = 2 }.bytes, .truncated),
            Named("1025 headers", valid.changing { $0.headerCount = 1025 }.bytes, .tooManyFields),
        ]
    }()

    @Test("Bytes that are not a head are refused with the reason, never a trap", arguments: refusals)
    func refusal(_ row: Named<([UInt8], CacheEntry.FormatError)>) {
        #expect(throws: row.value.1) { try CacheEntry(decodingHead: row.value.0) }
    }

    @Test("Every truncation and every extension of a valid head is refused")
    func truncations() throws {
        let bytes = try cacheEntry(vary: ["accept": "json", "x": nil]).encodedHead()
        for count in 0..<bytes.count {
            #expect(throws: CacheEntry.FormatError.self) { try CacheEntry(decodingHead: Array(bytes.prefix(count))) }
        }
        #expect(throws: CacheEntry.FormatError.lengthMismatch) { try CacheEntry(decodingHead: bytes + [0]) }
    }

    @Test("A head larger than 1 MiB is refused before it is read")
    func tooLarge() {
        let bytes = HeadBytes().bytes + Array(repeating: 0, count: 1 << 20)
        #expect(throws: CacheEntry.FormatError.tooLarge) { try CacheEntry(decodingHead: bytes) }
    }

    static let unencodable: [Named<(CacheEntry, CacheEntry.FormatError)>] = [
        Named("status 42", cacheEntry(status: 42), .invalidField("status")),
        Named("header value with CR LF", cacheEntry(headers: ["X": "a\r\nb"]), .invalidField("field value")),
        Named("header name with a space", cacheEntry(headers: ["X Y": "a"]), .invalidField("field name")),
        Named(
            "method not a token",
            CacheEntry(
                key: CacheEntry.Key(method: "G T", url: "https://e.com/"), status: 200, headers: [:],
                requestTime: cacheTestStart, responseTime: cacheTestStart),
            .invalidField("method")
        ),
        Named(
            "empty URL",
            CacheEntry(
                key: cacheKey(""), status: 200, headers: [:], requestTime: .distantPast,
                responseTime: .distantPast), .invalidField("url")),
        Named("Vary value with NUL", cacheEntry(vary: ["a": "\0"]), .invalidField("field value")),
        Named(
            "header value of 70 000 bytes", cacheEntry(headers: ["X": String(repeating: "a", count: 70_000)]),
            .fieldTooLong),
        Named(
            "a head over 1 MiB",
            cacheEntry(
                headers: HTTPHeaders(
                    (0..<20).map {
                        HTTPHeaders.Field(name: "X-\($0)", value: String(repeating: "a", count: 60_000))
                    })),
            .tooLarge
        ),
    ]

    @Test("An entry that breaks the format's rules is not encoded", arguments: unencodable)
    func refusedEncoding(_ row: Named<(CacheEntry, CacheEntry.FormatError)>) {
        #expect(throws: row.value.1) { try row.value.0.encodedHead() }
        #expect(throws: row.value.1) { try row.value.0.encodedHeadLength() }
    }

    @Test("A head that replaces a stored one is measured as encoded, and its new fields are checked")
    func replacingHeadLength() throws {
        let stored = cacheEntry(vary: ["accept": "a"], headers: ["Content-Type": "application/json", "ETag": #""1""#])
        let at = cacheTestStart.addingTimeInterval(10)
        for headers: HTTPHeaders in [
            ["Content-Type": "application/json", "ETag": #""2""#, "Date": "Thu, 01 Jan 2026 00:00:00 GMT"],
            ["ETag": #""1""#], [:],
        ] {
            let updated = stored.updated(headers: headers, requestTime: at, responseTime: at)
            #expect(try updated.encodedHeadLength(replacing: stored) == updated.encodedHead().count)
        }
        let broken = stored.updated(
            headers: ["Content-Type": "application/json", "ETag": "\"2\"\r\nX: y"], requestTime: at, responseTime: at)
        #expect(throws: CacheEntry.FormatError.invalidField("field value")) {
            try broken.encodedHeadLength(replacing: stored)
        }
        let badName = stored.updated(headers: ["Content Type": "a"], requestTime: at, responseTime: at)
        #expect(throws: CacheEntry.FormatError.invalidField("field name")) {
            try badName.encodedHeadLength(replacing: stored)
        }
    }

    @Test("A key leaves out the URL's fragment")
    func keyWithoutFragment() throws {
        let url = try #require(URL(string: "https://example.com/a?b=1#section"))
        #expect(CacheEntry.Key(method: .get, url: url).url == "https://example.com/a?b=1")
        #expect(CacheEntry.Key(method: .get, url: url) == cacheKey("https://example.com/a?b=1"))
        #expect(!"\(CacheEntry.Key(method: .get, url: url))".contains("example"))
    }

    @Test("Variants: names compared without case, values and absences told apart")
    func variants() {
        #expect(CacheEntry.Variant(["Accept": "a"]) == CacheEntry.Variant(["accept": "a"]))
        #expect(CacheEntry.Variant(["accept": "a"]) != CacheEntry.Variant(["accept": "b"]))
        #expect(CacheEntry.Variant(["accept": nil]) != CacheEntry.Variant([:]))
        #expect(CacheEntry.Variant(["accept": nil]) != CacheEntry.Variant(["accept": ""]))
        #expect(CacheEntry.Variant(["b": "1", "a": "2"]).names == ["a", "b"])
        #expect(CacheEntry.Variant.none == CacheEntry.Variant([:]))
    }
}
