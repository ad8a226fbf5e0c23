import Foundation
import SimpleNetworking
import Testing

/// The response-side cases of the http-tests cache conformance suite that apply to a private cache
/// (`cc-response`, `stale`, `heuristic-freshness`, `status`, `other`, `method`, `partial`, `interim`), as rows:
/// the response stored at 0 s, asked for again 3 s later unless the row says otherwise.
@Suite("Cache conformance: response directives, statuses and heuristics")
struct CacheResponseConformanceTests {
    static let directives: [CacheCase] = [
        // A shared cache must not store `private`; this cache is private, so it does.
        CacheCase(
            id: "cc-resp-private-shared", response: [("Cache-Control", "private, max-age=3600")], expected: .fresh),
        CacheCase(
            id: "cc-resp-private-private", response: [("Cache-Control", "private, max-age=3600")], expected: .fresh),
        CacheCase(
            id: "cc-resp-no-store", response: [("Cache-Control", "no-store")], expected: .notStored(.responseNoStore)),
        CacheCase(
            id: "cc-resp-no-store-case-insensitive", response: [("Cache-Control", "No-StOrE")],
            expected: .notStored(.responseNoStore)),
        CacheCase(
            id: "cc-resp-no-store-fresh",
            response: [
                ("Cache-Control", "max-age=10000, no-store"), ("Expires", httpDate(10000)), ("Date", httpDate(0)),
            ],
            expected: .notStored(.responseNoStore)),
        // The newer response of `cc-resp-no-store-old-*` is not stored (the store keeps the older one).
        CacheCase(
            id: "cc-resp-no-store-old-max-age",
            response: [("Cache-Control", "no-store, max-age=0"), ("Date", httpDate(0)), ("A", "2")],
            expected: .notStored(.responseNoStore)),
        // `no-cache` without a validator could never be reused: not stored at all.
        CacheCase(
            id: "cc-resp-no-cache",
            response: [
                ("Cache-Control", "max-age=10000, no-cache"), ("Expires", httpDate(10000)), ("Date", httpDate(0)),
            ],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "cc-resp-no-cache-case-insensitive",
            response: [
                ("Cache-Control", "max-age=10000, No-CaChE"), ("Expires", httpDate(10000)), ("Date", httpDate(0)),
            ],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "cc-resp-no-cache-revalidate", response: [("Cache-Control", "no-cache"), ("ETag", "\"abcd\"")],
            expected: .etag("\"abcd\"")),
        CacheCase(
            id: "cc-resp-no-cache-revalidate-fresh",
            response: [
                ("Cache-Control", "max-age=10000, no-cache"), ("Expires", httpDate(10000)), ("Date", httpDate(0)),
                ("ETag", "\"abcd\""),
            ],
            expected: .etag("\"abcd\"")),
        // A qualified no-cache is a plain no-cache here (the whole response is revalidated, RFC 9111 section
        // 5.2.2.4): without a validator, not stored. The suite's check expects the fields omitted instead.
        CacheCase(
            id: "headers-omit-headers-listed-in-Cache-Control-no-cache-single",
            response: [
                ("Cache-Control", "no-cache=\"a\""), ("a", "1"), ("b", "2"), ("Cache-Control", "max-age=3600"),
                ("Date", httpDate(0)),
            ],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "no-cache-qualified-with-validator",
            response: [("Cache-Control", "no-cache=\"a, b\", max-age=3600"), ("ETag", "\"v1\"")],
            expected: .etag("\"v1\"")),
        CacheCase(
            id: "cc-resp-must-revalidate-fresh",
            response: [("Cache-Control", "max-age=10000, must-revalidate"), ("ETag", "\"abcd\"")], expected: .fresh),
        CacheCase(
            id: "cc-resp-must-revalidate-stale",
            response: [("Cache-Control", "max-age=2, must-revalidate"), ("ETag", "\"abcd\"")],
            expected: .etag("\"abcd\"")),
        // A reload (`max-age=0`) does not revalidate a fresh immutable response, but a stale one it does.
        CacheCase(
            id: "cc-resp-immutable-fresh",
            response: [("Cache-Control", "max-age=10000, immutable"), ("ETag", "\"abcd\"")],
            request: [("Cache-Control", "max-age=0")], expected: .fresh),
        CacheCase(
            id: "cc-resp-immutable-stale", response: [("Cache-Control", "max-age=2, immutable"), ("ETag", "\"abcd\"")],
            request: [("Cache-Control", "max-age=0")], expected: .etag("\"abcd\"")),
        // `no-cache` is the client's requirement, which immutable does not override.
        CacheCase(
            id: "immutable-fresh-request-no-cache",
            response: [("Cache-Control", "max-age=10000, immutable"), ("ETag", "\"abcd\"")],
            request: [("Cache-Control", "no-cache")], expected: .etag("\"abcd\"")),
        CacheCase(
            id: "immutable-with-argument-is-ignored",
            response: [("Cache-Control", "max-age=10000, immutable=1"), ("ETag", "\"abcd\"")],
            request: [("Cache-Control", "max-age=0")], expected: .etag("\"abcd\"")),
    ]

    /// `stale-while-revalidate` (RFC 5861 section 3).
    static let staleWhileRevalidate: [CacheCase] = [
        CacheCase(
            id: "stale-while-revalidate",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=3600"), ("ETag", "\"abc\"")],
            expected: .staleWhileRevalidating(CacheValidation(ifNoneMatch: "\"abc\""))),
        CacheCase(
            id: "stale-while-revalidate-window",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=4"), ("ETag", "\"abc\"")],
            expected: .staleWhileRevalidating(CacheValidation(ifNoneMatch: "\"abc\""))),
        CacheCase(
            id: "stale-while-revalidate-window-passed",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=4"), ("ETag", "\"abc\"")], elapsed: 6,
            expected: .etag("\"abc\"")),
        CacheCase(
            id: "stale-while-revalidate-without-validator",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60")],
            expected: .staleWhileRevalidating(CacheValidation())),
        CacheCase(
            id: "stale-while-revalidate-fresh", response: [("Cache-Control", "max-age=60, stale-while-revalidate=60")],
            expected: .fresh),
        CacheCase(
            id: "stale-while-revalidate-must-revalidate",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60, must-revalidate"), ("ETag", "\"a\"")],
            expected: .etag("\"a\"")),
        CacheCase(
            id: "stale-while-revalidate-no-cache",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60, no-cache"), ("ETag", "\"a\"")],
            expected: .etag("\"a\"")),
        // A request that limits the age it accepts gets a validated response, not a stale one.
        CacheCase(
            id: "stale-while-revalidate-request-max-age",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "max-age=2")], expected: .etag("\"a\"")),
        CacheCase(
            id: "stale-while-revalidate-request-min-fresh",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "min-fresh=1")], expected: .etag("\"a\"")),
        // only-if-cached never reaches the network, not even in the background.
        CacheCase(
            id: "stale-while-revalidate-only-if-cached",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "only-if-cached")], expected: .stale),
        CacheCase(
            id: "stale-while-revalidate-invalid-window",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=soon"), ("ETag", "\"a\"")],
            expected: .etag("\"a\"")),
    ]

    /// Heuristic freshness (RFC 9111 section 4.2.2): a tenth of the time since `Last-Modified`, for the statuses
    /// RFC 9110 section 15.1 lists or a `public` response, at most a day.
    static let heuristic: [CacheCase] =
        [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501].map { status in
            CacheCase(
                id: "heuristic-\(status)-cached", status: status,
                response: [("Last-Modified", httpDate(-86400)), ("Date", httpDate(0))], expected: .fresh)
        }
        + [201, 202, 403, 502, 503, 504, 599].map { status in
            CacheCase(
                id: "heuristic-\(status)-not_cached", status: status,
                response: [("Last-Modified", httpDate(-86400)), ("Date", httpDate(0))],
                expected: .notStored(.notCacheable))
        }
        + [
            CacheCase(
                id: "heuristic-599-cached", status: 599,
                response: [("Last-Modified", httpDate(-86400)), ("Date", httpDate(0)), ("Cache-Control", "public")],
                expected: .fresh),
            // A private response of another status: `private` lets it be stored, but only `public` allows a
            // heuristic, so it is stale at once and revalidated.
            CacheCase(
                id: "heuristic-201-private", status: 201,
                response: [("Last-Modified", httpDate(-86400)), ("Date", httpDate(0)), ("Cache-Control", "private")],
                expected: .modifiedSince(-86400)),
        ]
        // 10% of 5 s, 10 s and 30 s is at most 3 s: stale when asked 3 s later.
        + [
            (5, false), (10, false), (30, false), (60, true), (300, true), (600, true), (1200, true), (1800, true),
            (3600, true), (43200, true), (86400, true),
        ].map { seconds, fresh in
            CacheCase(
                id: "heuristic-delta-\(seconds)",
                response: [("Last-Modified", httpDate(-TimeInterval(seconds))), ("Date", httpDate(0))],
                expected: fresh ? .fresh : .modifiedSince(-TimeInterval(seconds)))
        }
        + [
            // At most a day, however old the resource.
            CacheCase(
                id: "heuristic-limit-within",
                response: [("Last-Modified", httpDate(-8_640_000)), ("Date", httpDate(0))], elapsed: 86_399,
                expected: .fresh),
            CacheCase(
                id: "heuristic-limit-passed",
                response: [("Last-Modified", httpDate(-8_640_000)), ("Date", httpDate(0))], elapsed: 86_401,
                expected: .modifiedSince(-8_640_000)),
            // Last-Modified after Date: no heuristic lifetime.
            CacheCase(
                id: "heuristic-last-modified-in-future",
                response: [("Last-Modified", httpDate(600)), ("Date", httpDate(0))], expected: .modifiedSince(600)),
            // Without Date, the time of receipt stands for it.
            CacheCase(
                id: "heuristic-without-date", response: [("Last-Modified", httpDate(-86400))], expected: .fresh),
            CacheCase(
                id: "other-heuristic-content-disposition-attachment",
                response: [
                    ("Last-Modified", httpDate(-100_000)), ("Date", httpDate(0)),
                    ("Content-Disposition", "attachment; filename=example.txt"),
                ],
                expected: .fresh),
        ]

    /// Statuses with explicit freshness, fresh and stale: any final status but 206 and 304 is stored.
    static let statuses: [CacheCase] =
        [200, 203, 204, 299, 301, 302, 303, 307, 308, 400, 404, 410, 499, 500, 502, 503, 504, 599].flatMap { status in
            [
                CacheCase(
                    id: "status-\(status)-fresh", status: status,
                    response: [("Cache-Control", "max-age=100000"), ("Date", httpDate(0))], expected: .fresh),
                CacheCase(
                    id: "status-\(status)-stale", status: status,
                    response: [
                        ("Expires", httpDate(-5000)), ("Last-Modified", httpDate(-100_000)), ("Date", httpDate(0)),
                    ],
                    expected: .modifiedSince(-100_000)),
            ]
        }
        + [
            CacheCase(
                id: "status-599-must-understand", status: 599,
                response: [("Cache-Control", "max-age=3600, no-store, must-understand")], expected: .notStored(.status)),
            CacheCase(
                id: "status-200-must-understand",
                response: [("Cache-Control", "max-age=3600, no-store, must-understand")], expected: .fresh),
            CacheCase(
                id: "partial-206-not-stored", status: 206,
                response: [("Cache-Control", "max-age=3600"), ("Content-Range", "bytes 4-9/10")],
                expected: .notStored(.partialContent)),
            CacheCase(
                id: "status-304-not-stored", status: 304, response: [("Cache-Control", "max-age=3600")],
                expected: .notStored(.status)),
            CacheCase(
                id: "interim-not-cached", status: 103, response: [("Cache-Control", "max-age=100000")],
                expected: .notStored(.status)),
            // The suite's optional method-POST reuses a POST response with Content-Location for a GET; this cache
            // stores GET responses only.
            CacheCase(
                id: "method-POST", method: .post,
                response: [("Cache-Control", "max-age=3600"), ("Content-Location", "/"), ("Date", httpDate(0))],
                expected: .notStored(.method)),
            CacheCase(
                id: "method-HEAD", method: .head, response: [("Cache-Control", "max-age=3600")],
                expected: .notStored(.method)),
        ]

    /// Other fields that do not keep a response from being reused.
    static let other: [CacheCase] = [
        CacheCase(
            id: "other-fresh-content-disposition-attachment",
            response: [
                ("Cache-Control", "max-age=100000"), ("Date", httpDate(0)),
                ("Content-Disposition", "attachment; filename=example.txt"),
            ],
            expected: .fresh),
        CacheCase(
            id: "other-set-cookie",
            response: [("Cache-Control", "max-age=100000"), ("Date", httpDate(0)), ("Set-Cookie", "a=b")],
            expected: .fresh),
        CacheCase(
            id: "other-cookie", response: [("Cache-Control", "max-age=100000"), ("Date", httpDate(0))],
            request: [("Cookie", "a=b")], expected: .fresh),
        CacheCase(
            id: "pragma-response-no-cache", response: [("Cache-Control", "max-age=3600"), ("Pragma", "no-cache")],
            expected: .fresh),
        CacheCase(
            id: "pragma-response-no-cache-heuristic",
            response: [("Date", httpDate(0)), ("Last-Modified", httpDate(-10000)), ("Pragma", "no-cache")],
            expected: .fresh),
        CacheCase(
            id: "pragma-response-extension",
            response: [("Cache-Control", "max-age=3600"), ("Pragma", "unrecognised-extension")], expected: .fresh),
    ]

    @Test("Response directives", arguments: directives)
    func responseDirectives(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("stale-while-revalidate", arguments: staleWhileRevalidate)
    func staleWhileRevalidating(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Heuristic freshness", arguments: heuristic)
    func heuristicFreshness(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Statuses and methods", arguments: statuses)
    func statusStorability(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Other fields", arguments: other)
    func otherFields(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }
}
