import Foundation
import SimpleNetworking
import Testing

/// Facts from OkHttp's cookie parsing tests (`CookieTest.kt`), RFC 6265 section 5.1.1 and the user-agent rules of
/// RFC 6265bis section 5.6 (octets, not the servers' ASCII grammar), over the library's own parser and date reader.
@Suite("Set-Cookie parsing")
struct CookieParsingTests {
    @Test(
        "Name and value: trimmed of spaces and tabs, spaces, tabs and UTF-8 inside kept, an empty value allowed",
        arguments: [
            ("SID=31d4d96e407aad42", "SID", "31d4d96e407aad42"),
            ("a b=cd", "a b", "cd"),
            ("ab=c d", "ab", "c d"),
            (" a=b", "a", "b"),
            ("a =b", "a", "b"),
            ("\t \ta\t \t=b", "a", "b"),
            ("a=", "a", ""),
            ("a= ", "a", ""),
            ("a=\t \t", "a", ""),
            ("a= b", "a", "b"),
            ("a=b ", "a", "b"),
            ("a=\t b\t ", "a", "b"),
            ("a=\"quoted\"", "a", "\"quoted\""),
            ("a=b=c", "a", "b=c"),
            ("a\tb=cd", "a\tb", "cd"),
            ("ab=c\td", "ab", "c\td"),
            ("foo=春节回家路·春运完全手册", "foo", "春节回家路·春运完全手册"),
            ("名前=値", "名前", "値"),
            ("a\u{ff}b=c\u{80}d", "a\u{ff}b", "c\u{80}d"),
        ] as [(String, String, String)])
    func nameAndValue(field: String, name: String, value: String) throws {
        let cookie = try #require(SetCookieParser.parse(field))
        #expect(cookie.name == name)
        #expect(cookie.value == value)
    }

    @Test(
        "A field without a name, without '=', or with a control character other than tab anywhere is no cookie",
        arguments: [
            "foo", "foo; Path=/", "=b", " =b", "\t =b", "",
            "a\u{0}b=cd", "ab=c\u{0}d", "a\u{1}b=cd", "ab=c\u{1}d", "a\u{1f}b=cd", "ab=c\u{1f}d", "a\u{7f}b=cd",
            "ab=c\u{7f}d", "\r\na=b", "a=b\r\n", "a=b; Path=/\u{0}", "a=b; Domain=example.com\n", "a=b\u{0}; Path=/",
        ])
    func rejected(field: String) {
        #expect(SetCookieParser.parse(field) == nil)
    }

    @Test("A cookie of 4,096 bytes of name and value is accepted; one byte more is not")
    func sizeLimit() {
        let name = "n"
        #expect(SetCookieParser.parse(name + "=" + String(repeating: "v", count: 4095)) != nil)
        #expect(SetCookieParser.parse(name + "=" + String(repeating: "v", count: 4096)) == nil)
    }

    @Test("Attributes are read without regard to case; the last of each kind wins")
    func attributes() throws {
        let cookie = try #require(
            SetCookieParser.parse(
                "SID=x; PATH=/a; Path=/b; DOMAIN=.Example.COM; secure; HTTPONLY; SameSite=lax; Unknown=1"))
        #expect(cookie.path == "/b")
        #expect(cookie.domain == "example.com")
        #expect(cookie.isSecure)
        #expect(cookie.isHTTPOnly)
        #expect(cookie.sameSite == .lax)
        let plain = try #require(SetCookieParser.parse("a=b"))
        #expect(!plain.isSecure && !plain.isHTTPOnly && plain.sameSite == nil && plain.domain == nil)
    }

    @Test(
        "SameSite takes Strict, Lax and None in any case; anything else is ignored",
        arguments: [
            ("a=b; SameSite=Strict", SameSite.strict), ("a=b; samesite=STRICT", .strict),
            ("a=b; SameSite=lax", .lax), ("a=b; SameSite=None", .unrestricted), ("a=b; SameSite=sometimes", nil),
            ("a=b; SameSite", nil),
        ] as [(String, SameSite?)])
    func sameSite(field: String, expected: SameSite?) throws {
        #expect(try #require(SetCookieParser.parse(field)).sameSite == expected)
    }

    @Test(
        "A Path that does not start with '/' is ignored, so the default path applies",
        arguments: [("a=b; path=quux", nil), ("a=b; path=", nil), ("a=b; path=/quux", "/quux")] as [(String, String?)])
    func path(field: String, expected: String?) throws {
        #expect(try #require(SetCookieParser.parse(field)).path == expected)
    }

    /// OkHttp measures Max-Age from a given time; so does `expiry(receivedAt:)`. A zero or negative Max-Age expires
    /// at once, huge ones clamp instead of overflowing, and no cookie lives more than 400 days (RFC 6265bis).
    @Test(
        "Max-Age: seconds from now, capped at 400 days; zero or less expires at once",
        arguments: [
            ("a=b; Max-Age=1", 1.0), ("a=b; Max-Age=9223372036854724", CookieJar.maximumLifetime),
            ("a=b; Max-Age=9223372036854775807", CookieJar.maximumLifetime),
            ("a=b; Max-Age=10000000000000000000", CookieJar.maximumLifetime),
            ("a=b; Max-Age=0", -.infinity), ("a=b; Max-Age=-1", -.infinity),
            ("a=b; Max-Age=-9223372036854775808", -.infinity), ("a=b; Max-Age=-9223372036854775809", -.infinity),
            ("a=b; Max-Age=-10000000000000000000", -.infinity),
            ("a=b; Max-Age=1; Expires=Thu, 01 Jan 1970 00:00:02 GMT", 1),
            ("a=b; Expires=Thu, 01 Jan 1970 00:00:02 GMT; Max-Age=1", 1),
            ("a=b; Max-Age=2; Expires=Thu, 01 Jan 1970 00:00:01 GMT", 2),
            ("a=b; Expires=Thu, 01 Jan 1970 00:00:01 GMT; Max-Age=2", 2),
            ("a=b; Max-Age=2; Max-Age=4; Max-Age=1; Max-Age=3", 3),
            ("a=b; Max-Age=1x", .nan), ("a=b; Max-Age=", .nan), ("a=b; Max-Age=+5", .nan),
        ] as [(String, Double)])
    func maxAge(field: String, secondsFromNow: Double) throws {
        let now = Date(timeIntervalSince1970: 0)
        let expiry = try #require(SetCookieParser.parse(field)).expiry(receivedAt: now)
        if secondsFromNow.isNaN {
            #expect(expiry == nil)
        } else if secondsFromNow == -.infinity {
            #expect(expiry == .distantPast)
        } else {
            #expect(expiry == now.addingTimeInterval(secondsFromNow))
        }
    }

    @Test("Of several Expires attributes the last date wins")
    func lastExpiresWins() throws {
        let cookie = try #require(
            SetCookieParser.parse(
                "a=b; Expires=Thu, 01 Jan 1970 00:00:02 GMT; Expires=Thu, 01 Jan 1970 00:00:04 GMT; Expires=junk"))
        #expect(cookie.expires == Date(timeIntervalSince1970: 4))
    }

    /// RFC 6265 section 5.1.1 reads every date format servers send; OkHttp's awkward dates all mean the epoch.
    @Test(
        "Expires dates in the formats of RFC 6265 section 5.1.1",
        arguments: [
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Wed, 09 Jun 2021 10:18:14 GMT", 1_623_233_894),
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
            ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
            ("Sun Nov  6 08:49:37 1994", 784_111_777),
            ("Thu, 01 Jan 70 00:00:00 GMT", 0),
            ("Thu, 01 January 1970 00:00:00 GMT", 0),
            ("Thu, 01 Janucember 1970 00:00:00 GMT", 0),
            ("Thu, 1 Jan 1970 00:00:00 GMT", 0),
            ("Thu, 01 Jan 1970 0:00:00 GMT", 0),
            ("Thu, 01 Jan 1970 00:0:00 GMT", 0),
            ("Thu, 01 Jan 1970 00:00:0 GMT", 0),
            ("00:00:00 Thu, 01 Jan 1970 GMT", 0),
            ("00:00:00 1970 Jan 01", 0),
            ("00:00:00 1970 Jan 1", 0),
            ("Mon, 01 Jan 2001 00:00:00 GMT", 978_307_200),
            ("Mon, 01 Jan 01 00:00:00 GMT", 978_307_200),
            ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
        ] as [(String, Int)])
    func dates(text: String, seconds: Int) {
        #expect(CookieDate.parse(text) == Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test(
        "Dates with a part missing or out of range are no dates",
        arguments: [
            "Thu, 01 Jan 1600 00:00:00 GMT", "Thu, 01 Jan 19999 00:00:00 GMT", "Thu, 01 Jan 00:00:00 GMT",
            "Thu, 01 Foo 1970 00:00:00 GMT", "Thu, 01 Foocember 1970 00:00:00 GMT", "Thu, 01 1970 00:00:00 GMT",
            "Thu, 32 Jan 1970 00:00:00 GMT", "Thu, Jan 1970 00:00:00 GMT", "Thu, 01 Jan 1970 24:00:00 GMT",
            "Thu, 01 Jan 1970 00:60:00 GMT", "Thu, 01 Jan 1970 00:00:60 GMT", "Sat, 30 Feb 2019 00:00:00 GMT",
            "Thu, 29 Feb 2001 00:00:00 GMT", "", "tomorrow",
        ])
    func badDates(text: String) {
        #expect(CookieDate.parse(text) == nil)
    }
}
