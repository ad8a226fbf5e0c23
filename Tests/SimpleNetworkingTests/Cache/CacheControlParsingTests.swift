import Foundation
import SimpleNetworking
import Testing

/// Reading `Cache-Control` (RFC 9111 section 5.2): the directives a field's lines give, including the restrictive
/// readings of invalid and repeated values (section 4.2.1) and delta-seconds past 2^31 (section 1.2.2).
@Suite("Cache rules: Cache-Control parsing")
struct CacheControlParsingTests {
    /// Builds the expected value of a row.
    static func directives(_ build: (inout CacheControl) -> Void) -> CacheControl {
        var value = CacheControl()
        build(&value)
        return value
    }

    @Test(
        "Directives of a response",
        arguments: [
            ([], CacheControl()),
            (["max-age=60"], directives { $0.maxAge = 60 }),
            (["MAX-AGE=60"], directives { $0.maxAge = 60 }),
            (["max-age=\"60\""], directives { $0.maxAge = 60 }),
            (["max-age=\"6\\0\""], directives { $0.maxAge = 60 }),
            (["max-age=0060"], directives { $0.maxAge = 60 }),
            (["max-age=60, max-age=60"], directives { $0.maxAge = 60 }),
            (["max-age=60", "max-age=61"], directives { $0.maxAge = 0 }),
            (["max-age=-1"], directives { $0.maxAge = 0 }),
            (["max-age=1.5"], directives { $0.maxAge = 0 }),
            (["max-age="], directives { $0.maxAge = 0 }),
            (["max-age"], directives { $0.maxAge = 0 }),
            (["max-age =60"], directives { $0.maxAge = 0 }),
            (["max-age=60 60"], directives { $0.maxAge = 0 }),
            (["max-age=\"60"], directives { $0.maxAge = 0 }),
            (["max-age=99999999999999999999999999"], directives { $0.maxAge = 2_147_483_648 }),
            (["max-age=2147483647"], directives { $0.maxAge = 2_147_483_647 }),
            (
                ["s-maxage=10, max-age=60"],
                directives {
                    $0.sharedMaxAge = 10; $0.maxAge = 60
                }
            ),
            (["no-store"], directives { $0.noStore = true }),
            (["no-store=\"x\""], directives { $0.noStore = true }),
            (["No-Cache"], directives { $0.noCache = true }),
            (
                ["no-cache=\"Set-Cookie, X-A\""],
                directives {
                    $0.noCache = true; $0.noCacheFieldNames = ["set-cookie", "x-a"]
                }
            ),
            (
                ["no-cache=Set-Cookie"],
                directives {
                    $0.noCache = true; $0.noCacheFieldNames = ["set-cookie"]
                }
            ),
            (
                ["must-revalidate, proxy-revalidate"],
                directives {
                    $0.mustRevalidate = true; $0.proxyRevalidate = true
                }
            ),
            (
                ["private, public"],
                directives {
                    $0.isPrivate = true; $0.isPublic = true
                }
            ),
            (["private=\"Set-Cookie\""], directives { $0.isPrivate = true }),
            (["public=yes"], CacheControl()),
            (["immutable"], directives { $0.immutable = true }),
            (["immutable=\"1\""], CacheControl()),
            (
                ["must-understand, no-store"],
                directives {
                    $0.mustUnderstand = true; $0.noStore = true
                }
            ),
            (["stale-while-revalidate=30"], directives { $0.staleWhileRevalidate = 30 }),
            (["stale-while-revalidate=30, stale-while-revalidate=10"], directives { $0.staleWhileRevalidate = 10 }),
            (["stale-if-error=x"], directives { $0.staleIfError = 0 }),
            (["stale-if-error=600"], directives { $0.staleIfError = 600 }),
            // Unknown directives, junk and stray separators are skipped, quoted commas included.
            (["foo, bar=\"a, max-age=1\", ,, max-age=5"], directives { $0.maxAge = 5 }),
            (["é, max-age=5"], directives { $0.maxAge = 5 }),
            (["\"max-age=1\", max-age=5"], directives { $0.maxAge = 5 }),
            ([" \t max-age=5 \t "], directives { $0.maxAge = 5 }),
            (
                ["max-age=5;foo, no-store"],
                directives {
                    $0.maxAge = 0; $0.noStore = true
                }
            ),
            (["", "max-age=5", ""], directives { $0.maxAge = 5 }),
        ] as [([String], CacheControl)])
    func response(lines: [String], expected: CacheControl) {
        var headers = HTTPHeaders()
        for line in lines { headers.add(name: "Cache-Control", value: line) }
        #expect(CacheControl(responseHeaders: headers) == expected)
    }

    @Test("A response line read again, after another or from many tasks at once, gives the directives read afresh")
    func responseLineReadAgain() async {
        let lines = ["max-age=60", "no-cache", "max-age=60", "private, max-age=5", "no-cache", "", "MAX-AGE=60"]
        for line in lines + lines.reversed() {
            #expect(CacheControl(responseLine: line) == CacheControl(directives: CacheDirective.parse([line])))
        }
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                let line = lines[index % lines.count]
                group.addTask {
                    CacheControl(responseLine: line) == CacheControl(directives: CacheDirective.parse([line]))
                }
            }
            for await same in group { #expect(same) }
        }
    }

    @Test(
        "Directives of a request",
        arguments: [
            ([("Cache-Control", "max-age=0")], directives { $0.maxAge = 0 }),
            ([("Cache-Control", "max-stale")], directives { $0.maxStale = .any }),
            ([("Cache-Control", "max-stale=30")], directives { $0.maxStale = .seconds(30) }),
            ([("Cache-Control", "max-stale, max-stale=30")], directives { $0.maxStale = .seconds(30) }),
            ([("Cache-Control", "max-stale=30, max-stale=10")], directives { $0.maxStale = .seconds(10) }),
            ([("Cache-Control", "max-stale=soon")], directives { $0.maxStale = .seconds(0) }),
            ([("Cache-Control", "min-fresh=30, min-fresh=60")], directives { $0.minFresh = 60 }),
            ([("Cache-Control", "min-fresh=x")], directives { $0.minFresh = 2_147_483_648 }),
            ([("Cache-Control", "only-if-cached")], directives { $0.onlyIfCached = true }),
            (
                [("Cache-Control", "no-store, no-cache")],
                directives {
                    $0.noStore = true; $0.noCache = true
                }
            ),
            ([("Pragma", "no-cache")], directives { $0.noCache = true }),
            ([("Pragma", "NO-CACHE, x=1")], directives { $0.noCache = true }),
            ([("Pragma", "x=\"no-cache\"")], CacheControl()),
            ([("Pragma", "no-cache"), ("Cache-Control", "max-stale")], directives { $0.maxStale = .any }),
            ([("Pragma", "no-cache"), ("Cache-Control", "")], CacheControl()),
        ] as [([(String, String)], CacheControl)])
    func request(fields: [(String, String)], expected: CacheControl) {
        #expect(CacheControl(requestHeaders: CacheScenario.headers(fields)) == expected)
    }

    @Test(
        "Delta-seconds",
        arguments: [
            ("0", 0), ("1", 1), ("007", 7), ("2147483648", 2_147_483_648), ("2147483649", 2_147_483_648),
            ("18446744073709551616", 2_147_483_648),
        ] as [(String, Int)])
    func deltaSeconds(text: String, seconds: Int) {
        #expect(CacheControl.deltaSeconds(text) == seconds)
    }

    @Test("Not delta-seconds", arguments: ["", "-1", "+1", "1.0", " 1", "1 ", "0x10", "١", "1e3"])
    func notDeltaSeconds(text: String) {
        #expect(CacheControl.deltaSeconds(text) == nil)
    }

    @Test("Any bytes parse without trapping")
    func anyBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("max-age=no-cache,\"\\ \t;=1é\u{0}\r\n".utf8)
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<40, using: &generator)).map { _ in
                alphabet.randomElement(using: &generator) ?? 0
            }
            let directives = CacheControl(responseHeaders: ["Cache-Control": String(decoding: bytes, as: UTF8.self)])
            #expect((directives.maxAge ?? 0) >= 0 && (directives.maxAge ?? 0) <= CacheControl.deltaSecondsLimit)
        }
    }
}
