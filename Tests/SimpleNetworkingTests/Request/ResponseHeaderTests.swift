import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Repeated response fields: URLSession joins them with ", ", which is equivalent for list headers but not for
/// `Set-Cookie`, so those are split back.
@Suite("Response header fields")
struct ResponseHeaderTests {
    /// Real-world `Set-Cookie` values, after the cases of Go's net/http cookie tests and OkHttp's cookie tests (written
    /// here in our own words): dates with commas in every format, `=` inside values, spaces, quoted values with commas,
    /// attributes without values, and a comma in a cookie value.
    static let cookies = [
        "Cookie-1=v$1",
        "NID=99=YsDT5i3E-CtAUhqsuBgvsfsEd8MbOSGSD1ZGVtOg0pHfCGkNY9_JDnD91o6HIyBaFiKpPRibuOUZP8kBX; "
            + "expires=Wed, 23-Nov-2011 01:05:03 GMT; path=/; domain=.google.ch; HttpOnly",
        ".ASPXAUTH=7E3AA; expires=Wed, 07-Mar-2012 14:25:06 GMT; path=/; HttpOnly",
        "ASP.NET_SessionId=foo; path=/; HttpOnly",
        "samesite-default=samesite; SameSite",
        "special-1=a z",
        "special-2= z",
        "special-5=a,z",
        #"special-6=",z""#,
        #"quoted="a, b=c"; Path=/"#,
        "cookie-9=i3e01nf61b6t23bvfmplnanol3; Path=/restricted/; Domain=example.com; "
            + "Expires=Tue, 10 Nov 2009 23:00:00 GMT; Max-Age=3600",
        "a=b; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
        "a=b; expires=Thursday, 01-Jan-70 00:00:00 GMT",
        "a=b; expires=Thu Jan  1 00:00:00 1970",
        "a=b; Expires=Wed,21-Oct-2015 07:28:00 GMT; Secure",
        "a=b; Max-Age=60; Path=/path; Domain=example.com; Secure; HttpOnly; SameSite=Lax",
        "empty=",
        "id=a3fWa; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
    ]

    @Test(
        "Each real-world Set-Cookie value survives being joined after a field with attributes",
        arguments: cookies.indices)
    func splitsJoinedCookies(index: Int) {
        let cookie = Self.cookies[index]
        let before = "previous=1; Path=/"

        #expect(SetCookieFields.split(cookie) == [cookie])
        #expect(SetCookieFields.split([before, cookie].joined(separator: ", ")) == [before, cookie])
    }

    @Test("Every Set-Cookie value with attributes, joined into one, comes back apart, in order")
    func splitsAllJoined() {
        let withAttributes = Self.cookies.filter { $0.contains(";") }
        #expect(withAttributes.count == 12)
        #expect(SetCookieFields.split(withAttributes.joined(separator: ", ")) == withAttributes)
    }

    /// Joined values and the fields they are read as, by the rules in <doc:Cookies>.
    @Test(
        "A joined value is split where only one reading makes every piece a cookie, and read safely where not",
        arguments: [
            // A value that echoes input keeps it: no second cookie, and the attribute list stays with its pair.
            ("pref=en, session=attacker; Path=/", ["pref=en, session=attacker; Path=/"]),
            ("foo=bar, baz=qux", ["foo=bar, baz=qux"]),
            // A nameless pair is a field of its own (then dropped), never part of the cookie before it.
            ("a=b, =, c=d", ["a=b", "=", "c=d"]),
            ("a=b, =x, c=d", ["a=b", "=x", "c=d"]),
            ("six, seven, =eight, test=six", ["six, seven", "=eight", "test=six"]),
            // After an attribute, a cookie pair starts a field; a date's comma does not.
            ("a=1; Path=/, b=2", ["a=1; Path=/", "b=2"]),
            ("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2", ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2"]),
            // A comma without the join's space, or inside quotes, never splits.
            ("foo=bar; b,az=qux", ["foo=bar; b,az=qux"]),
            ("a=\"x, =y\"; Path=/, b=2", ["a=\"x, =y\"; Path=/", "b=2"]),
            // Ambiguous, documented: two fields joined, the first without attributes, read as one cookie.
            ("a=1, b=2", ["a=1, b=2"]),
        ] as [(String, [String])])
    func joinedReadings(joined: String, fields: [String]) {
        #expect(SetCookieFields.split(joined) == fields)
    }

    @Test(
        "Commas that do not start a cookie leave the value whole",
        arguments: [
            "a=b, c", "a=b, 1 Jan", "a=b;, c=d", "a=\"x, y=z\"", "a=b; Path=/x,y", "a=b; Expires=Wed, 21 Oct 2015",
        ])
    func keepsWhole(value: String) {
        let expected = value == "a=b;, c=d" ? ["a=b;", "c=d"] : [value]
        #expect(SetCookieFields.split(value) == expected)
    }

    @Test("100 Set-Cookie fields arrive as 100 values, dates and all, and other repeated fields stay joined")
    func hundredCookiesOverLoopback() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let cookies = (0..<100).map { number in
            number.isMultiple(of: 2)
                ? "c\(number)=v\(number); Expires=Wed, 21 Oct 2015 07:28:\(number % 60) GMT; Path=/"
                : "c\(number)=\"q, \(number)=x\"; HttpOnly"
        }
        server.route { _ in
            MockResponse(
                headers: cookies.map { ("Set-Cookie", $0) } + [("X-List", "a"), ("X-List", "b")],
                body: Data("ok".utf8))
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let response = try await api.get("/cookies").response()

        #expect(response.headers.values(for: "Set-Cookie") == cookies)
        #expect(response.headers.values(for: "set-cookie").count == 100)
        // A list header may stay joined: "a, b" means the same as two fields (RFC 9110, section 5.3).
        #expect(response.headers.values(for: "X-List").joined(separator: ", ") == "a, b")
        #expect(response.headers["Content-Length"] == "2")
    }
}
