import Foundation
import SimpleNetworking
import Testing

/// The helpers under the cache rules: SHA-256 for variant keys, HTTP-dates, and variant keys themselves.
@Suite("Cache rules: digests, dates and variant keys")
struct CacheSupportTests {
    /// FIPS 180-4 example messages and their digests.
    @Test(
        "SHA-256 of known messages",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                String(repeating: "a", count: 1_000_000),
                "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrs"
                    + "mnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
    func sha256(message: String, digest: String) {
        #expect(PortableSHA256.hexHash(message.utf8) == digest)
    }

    @Test(
        "HTTP-dates written and read back",
        arguments: [
            (784_111_777.0, "Sun, 06 Nov 1994 08:49:37 GMT"), (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (1_704_067_200.9, "Mon, 01 Jan 2024 00:00:00 GMT"), (-11_644_473_600, "Mon, 01 Jan 1601 00:00:00 GMT"),
            (-1, "Wed, 31 Dec 1969 23:59:59 GMT"), (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
        ] as [(TimeInterval, String)])
    func imfFixdate(seconds: TimeInterval, text: String) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(CacheDate.imfFixdate(date) == text)
        #expect(CacheDate.parse(text, now: date) == Date(timeIntervalSince1970: seconds.rounded(.down)))
    }

    @Test(
        "Dates outside what an HTTP-date holds are not written", arguments: [-11_644_473_601.0, 253_402_300_800, .nan])
    func unwritableDates(seconds: TimeInterval) {
        #expect(CacheDate.imfFixdate(Date(timeIntervalSince1970: seconds)) == nil)
    }

    @Test(
        "Dates read without regard to the zone's case",
        arguments: [
            ("Sun, 06 Nov 1994 08:49:37 gmt", true), (" Sun, 06 Nov 1994 08:49:37 Gmt\t", true),
            ("Sun, 06 Nov 1994 08:49:37 UTC", false), ("Sun, 06 Nov 1994 08:49:37gmt", false), ("gmt", false),
            ("", false),
        ])
    func zoneCase(text: String, isDate: Bool) {
        #expect((CacheDate.parse(text, now: CacheScenario.base) != nil) == isDate)
    }

    @Test(
        "Field values lose the spaces and tabs around them, as Foundation's trimming does, from a String or a Substring",
        arguments: [
            "", " ", "\t \t", "a", " a", "a ", " \t a b \t ", "a\u{A0}", "\u{A0}a", "caf\u{E9} ", " \u{2764}\u{FE0F} ",
            "\"etag\"", "  Fri, 27 Nov 2026 19:16:44 GMT", "no-cache\r", String(repeating: "x", count: 40) + " ",
        ])
    func fieldValueTrimming(value: String) {
        let expected = value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        #expect(value.withoutSurroundingSpacesAndTabs == expected)
        #expect(value[...].withoutSurroundingSpacesAndTabs == expected)
        #expect(("<" + value + ">").dropFirst().dropLast().withoutSurroundingSpacesAndTabs == expected)
    }

    @Test("Variant keys: absent, empty and credentials differ; normalising does not")
    func variantKeys() {
        func key(_ fields: [(String, String)], names: [String] = ["Accept", "X-A"]) -> String {
            CacheVariant(fieldNames: names, requestHeaders: CacheScenario.headers(fields)).key
        }
        #expect(key([]) != key([("Accept", "")]))
        #expect(key([("Accept", "a")]) != key([("X-A", "a")]))
        #expect(key([("Accept", "a"), ("X-A", "")]) != key([("Accept", ""), ("X-A", "a")]))
        #expect(key([("Accept", "a, b")]) == key([("accept", "a"), ("ACCEPT", " b ")]))
        #expect(key([]) != key([("Authorization", "Bearer 1")]))
        #expect(key([("Authorization", "Bearer 1")]) != key([("Authorization", "Bearer 2")]))
        #expect(key([], names: ["b", "A"]) == key([], names: ["a", "B", "a"]))
        #expect(key([("Accept", "x")]).count == 64)
        let variant = CacheVariant(fieldNames: ["X-A"], requestHeaders: ["Authorization": "secret", "X-A": "1"])
        #expect(!variant.key.contains("secret"))
        #expect(variant.fieldNames == ["x-a"])
    }

    @Test(
        "Vary nominations",
        arguments: [
            ([], [String]?.some([])),
            (["Accept"], ["accept"]),
            (["Accept, accept-encoding", "X-B ,, "], ["accept", "accept-encoding", "x-b"]),
            (["*"], nil),
            (["a", " * "], nil),
        ] as [([String], [String]?)])
    func nominations(lines: [String], names: [String]?) {
        let headers = CacheScenario.headers(lines.map { ("Vary", $0) })
        #expect(CacheVariant.nominatedFieldNames(headers) == names)
    }
}
