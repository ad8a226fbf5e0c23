import Foundation
import SimpleNetworking
import Testing

/// The request-side cases of the http-tests cache conformance suite that apply to a private cache (`cc-request`,
/// `pragma`, `vary`, `vary-parse`, `authorization`, `conditional-etag`, `conditional-lm`), as rows: the response
/// stored at 0 s for the first request, the second request 3 s later unless the row says otherwise.
@Suite("Cache conformance: request directives, Vary and validation")
struct CacheRequestConformanceTests {
    static let fresh: [(String, String)] = [("Cache-Control", "max-age=100000"), ("Date", httpDate(0))]

    static let requestDirectives: [CacheCase] = [
        CacheCase(
            id: "ccreq-ma0", response: fresh, request: [("Cache-Control", "max-age=0")], expected: .modifiedSince(0)),
        CacheCase(
            id: "ccreq-ma1", response: fresh, request: [("Cache-Control", "max-age=1")], expected: .modifiedSince(0)),
        CacheCase(id: "ccreq-ma-within", response: fresh, request: [("Cache-Control", "max-age=60")], expected: .fresh),
        CacheCase(
            id: "ccreq-magreaterage", response: fresh + [("Age", "1800")], request: [("Cache-Control", "max-age=600")],
            expected: .modifiedSince(0)),
        CacheCase(
            id: "ccreq-max-stale",
            response: [("Cache-Control", "max-age=2"), ("Date", httpDate(0)), ("Template-A", "1")],
            request: [("Cache-Control", "max-stale=1000")], expected: .stale),
        CacheCase(
            id: "ccreq-max-stale-age", response: [("Cache-Control", "max-age=1500"), ("Age", "2000")],
            request: [("Cache-Control", "max-stale=1000")], expected: .stale),
        CacheCase(
            id: "ccreq-max-stale-exceeded", response: [("Cache-Control", "max-age=1500"), ("Age", "3000")],
            request: [("Cache-Control", "max-stale=1000")], expected: .fetch),
        CacheCase(
            id: "ccreq-max-stale-any", response: [("Cache-Control", "max-age=1"), ("Age", "999999")],
            request: [("Cache-Control", "max-stale")], expected: .stale),
        // must-revalidate: never stale, not even when the client accepts it.
        CacheCase(
            id: "ccreq-max-stale-must-revalidate", response: [("Cache-Control", "max-age=1, must-revalidate")],
            request: [("Cache-Control", "max-stale")], expected: .fetch),
        CacheCase(
            id: "ccreq-min-fresh", response: [("Cache-Control", "max-age=1500")],
            request: [("Cache-Control", "min-fresh=2000")], expected: .fetch),
        CacheCase(
            id: "ccreq-min-fresh-age", response: [("Cache-Control", "max-age=1500"), ("Age", "1000")],
            request: [("Cache-Control", "min-fresh=1000")], expected: .fetch),
        CacheCase(
            id: "ccreq-min-fresh-satisfied", response: [("Cache-Control", "max-age=1500")],
            request: [("Cache-Control", "min-fresh=1000")], expected: .fresh),
        CacheCase(
            id: "ccreq-no-cache", response: [("Cache-Control", "max-age=3600")],
            request: [("Cache-Control", "no-cache")],
            expected: .fetch),
        CacheCase(
            id: "ccreq-no-cache-lm",
            response: [("Cache-Control", "max-age=3600"), ("Last-Modified", httpDate(-10000)), ("Date", httpDate(0))],
            request: [("Cache-Control", "no-cache")], expected: .modifiedSince(-10000)),
        CacheCase(
            id: "ccreq-no-cache-etag", response: [("Cache-Control", "max-age=3600"), ("ETag", "\"aiqygowemucksai\"")],
            request: [("Cache-Control", "no-cache")], expected: .etag("\"aiqygowemucksai\"")),
        // A request's no-store keeps its own response out of storage but may be answered from it (RFC 9111
        // section 5.2.1.5); the suite's check expects the network.
        CacheCase(id: "ccreq-no-store", response: fresh, request: [("Cache-Control", "no-store")], expected: .fresh),
        CacheCase(
            id: "ccreq-no-store-first-request", firstRequest: [("Cache-Control", "no-store")], response: fresh,
            expected: .notStored(.requestNoStore)),
        CacheCase(id: "ccreq-oic", request: [("Cache-Control", "only-if-cached")], expected: .gatewayTimeout),
        CacheCase(
            id: "ccreq-oic-fresh", response: fresh, request: [("Cache-Control", "only-if-cached")], expected: .fresh),
        CacheCase(
            id: "ccreq-oic-stale", response: [("Cache-Control", "max-age=1"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "only-if-cached")], expected: .gatewayTimeout),
        CacheCase(
            id: "ccreq-oic-max-stale", response: [("Cache-Control", "max-age=1"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "only-if-cached, max-stale")], expected: .stale),
        CacheCase(
            id: "ccreq-oic-must-revalidate", response: [("Cache-Control", "max-age=1, must-revalidate")],
            request: [("Cache-Control", "only-if-cached, max-stale")], expected: .gatewayTimeout),
        CacheCase(
            id: "ccreq-oic-no-cache", response: fresh, request: [("Cache-Control", "only-if-cached, no-cache")],
            expected: .gatewayTimeout),
        // Requests the cache does not answer: ranges and the application's own preconditions.
        CacheCase(id: "request-range", response: fresh, request: [("Range", "bytes=0-1")], expected: .fetch),
        CacheCase(
            id: "request-range-only-if-cached", response: fresh,
            request: [("Range", "bytes=0-1"), ("Cache-Control", "only-if-cached")], expected: .gatewayTimeout),
        // The suite's conditional-etag-strong-respond and conditional-lm-fresh expect a 304 from storage (optional,
        // for shared caches); this cache passes the application's own validation through.
        CacheCase(
            id: "conditional-etag-strong-respond", response: fresh + [("ETag", "\"abcdef\"")],
            request: [("If-None-Match", "\"abcdef\"")], expected: .fetch),
        CacheCase(
            id: "conditional-lm-fresh", response: fresh + [("Last-Modified", httpDate(-3000))],
            request: [("If-Modified-Since", httpDate(-3000))], expected: .fetch),
        CacheCase(
            id: "conditional-etag-forward", request: [("If-None-Match", "\"abcdef\"")],
            expected: .notStored(.notReusable)),
    ]

    /// `Pragma: no-cache` on a request without `Cache-Control` is `no-cache` (RFC 7234 section 5.4; RFC 9111
    /// deprecates the field but names no other meaning). The suite's check expects it ignored.
    static let pragma: [CacheCase] = [
        CacheCase(
            id: "pragma-request-no-cache", response: fresh, request: [("Pragma", "no-cache")],
            expected: .modifiedSince(0)),
        CacheCase(
            id: "pragma-request-no-cache-with-cache-control", response: fresh,
            request: [("Pragma", "no-cache"), ("Cache-Control", "max-stale")], expected: .fresh),
        CacheCase(
            id: "pragma-request-no-cache-case", response: fresh, request: [("Pragma", "No-Cache")],
            expected: .modifiedSince(0)),
        CacheCase(
            id: "pragma-request-extension", response: fresh, request: [("Pragma", "unrecognised-extension")],
            expected: .fresh),
    ]

    static let varying: [(String, String)] = [
        ("Cache-Control", "max-age=5000"), ("Last-Modified", httpDate(-3000)), ("Date", httpDate(0)),
    ]

    /// `Vary` (RFC 9111 section 4.1). A request that does not match the stored variant goes to the network
    /// unconditionally (the suite's check conditional-etag-vary-headers-mismatch sends the stored tag anyway, which
    /// section 4.3.1 allows but does not require).
    static let vary: [CacheCase] =
        [
            ("vary-match", [("Foo", "1")], [("Foo", "1")], CacheOutcome.fresh),
            ("vary-no-match", [("Foo", "1")], [("Foo", "2")], .fetch),
            ("vary-omit-stored", [], [("Foo", "1")], .fetch),
            ("vary-omit", [("Foo", "1")], [], .fetch),
            ("vary-cache-key", [("Foo", "1"), ("Other", "2")], [("Foo", "1"), ("Other", "3")], .fresh),
            ("vary-normalise-combine", [("Foo", "1, 2")], [("Foo", "1"), ("Foo", "2")], .fresh),
            ("vary-normalise-space", [("Foo", "1,2")], [("Foo", " 1, 2 ")], .fresh),
            ("vary-case-of-value", [("Foo", "abc")], [("Foo", "ABC")], .fetch),
            ("vary-empty-value", [("Foo", "")], [], .fetch),
        ].map { id, first, second, expected in
            CacheCase(
                id: id, firstRequest: first, response: varying + [("Vary", "Foo")], request: second, expected: expected)
        }
        + [
            ("vary-2-match", [("Foo", "1"), ("Bar", "abc")], [("Foo", "1"), ("Bar", "abc")], CacheOutcome.fresh),
            ("vary-2-no-match", [("Foo", "1"), ("Bar", "abc")], [("Foo", "2"), ("Bar", "abc")], .fetch),
            ("vary-2-match-omit", [("Foo", "1"), ("Bar", "abc")], [], .fetch),
        ].map { id, first, second, expected in
            CacheCase(
                id: id, firstRequest: first, response: varying + [("Vary", "Foo, Bar")], request: second,
                expected: expected)
        }
        + [
            (
                "vary-3-match", [("Foo", "1"), ("Bar", "abc"), ("Baz", "789")],
                [("Foo", "1"), ("Bar", "abc"), ("Baz", "789")],
                CacheOutcome.fresh
            ),
            (
                "vary-3-no-match", [("Foo", "1"), ("Bar", "abc"), ("Baz", "789")],
                [("Foo", "2"), ("Bar", "abc"), ("Baz", "789")], .fetch
            ),
            (
                "vary-3-order", [("Foo", "1"), ("Bar", "abc"), ("Baz", "789")],
                [("Foo", "1"), ("Baz", "789"), ("Bar", "abcde")], .fetch
            ),
            ("vary-3-omit", [("Foo", "1"), ("Baz", "789")], [("Foo", "1"), ("Baz", "789")], .fresh),
        ].map { id, first, second, expected in
            CacheCase(
                id: id, firstRequest: first, response: varying + [("Vary", "Foo, Bar, Baz")], request: second,
                expected: expected)
        }
        + [
            // Field-specific normalising (language order, case, quality values) is not done: different values, a new
            // request. The suite marks these optional.
            ("vary-normalise-lang-order", "de, en", CacheOutcome.fetch),
            ("vary-normalise-lang-case", "eN, De", .fetch),
            ("vary-normalise-lang-space", " en ,   de", .fresh),
            ("vary-normalise-lang-select", "fr;q=0.5, de;q=1.0", .fetch),
        ].map { id, second, expected in
            CacheCase(
                id: id, firstRequest: [("Accept-Language", "en, de")],
                response: varying + [("Vary", "Accept-Language"), ("Content-Language", "de")],
                request: [("Accept-Language", second)], expected: expected)
        } + [
            CacheCase(
                id: "vary-name-case", firstRequest: [("foo", "1")], response: varying + [("Vary", "FOO")],
                request: [("Foo", "1")], expected: .fresh),
            CacheCase(
                id: "vary-two-lines", firstRequest: [("Foo", "1"), ("Bar", "2")],
                response: varying + [("Vary", "Foo"), ("Vary", "Bar")], request: [("Foo", "1"), ("Bar", "3")],
                expected: .fetch),
        ]

    /// `Vary: *` in any spelling: never stored.
    static let varyStar: [CacheCase] = [
        ("vary-star", ["*"]),
        ("vary-syntax-star", ["*"]),
        ("vary-syntax-star-star", ["*, *"]),
        ("vary-syntax-star-star-lines", ["*", "*"]),
        ("vary-syntax-empty-star", [", *"]),
        ("vary-syntax-empty-star-lines", ["", "*"]),
        ("vary-syntax-star-foo", ["*, Foo"]),
        ("vary-syntax-foo-star", ["Foo, *"]),
    ].map { id, lines in
        CacheCase(
            id: id, firstRequest: [("Foo", "1"), ("Baz", "789")], response: varying + lines.map { ("Vary", $0) },
            request: [("Foo", "1"), ("Baz", "789")], expected: .notStored(.varyAll))
    }

    /// Requests with `Authorization`. The suite's cases are for shared caches and ask again without credentials;
    /// this private cache stores the response but keys it by the credentials (``CacheVariant``), so only a request
    /// with the same credentials reuses it.
    static let authorization: [CacheCase] =
        [
            ("other-authorization", [("Cache-Control", "max-age=100000"), ("Date", httpDate(0))]),
            ("other-authorization-public", [("Cache-Control", "max-age=3600, public"), ("Date", httpDate(0))]),
            (
                "other-authorization-must-revalidate",
                [("Cache-Control", "max-age=3600, must-revalidate"), ("Date", httpDate(0))]
            ),
            ("other-authorization-smaxage", [("Cache-Control", "s-maxage=3600"), ("Date", httpDate(0))]),
        ].map { id, response in
            CacheCase(
                id: id, firstRequest: [("Authorization", "FOO")], response: response,
                expected: id == "other-authorization-smaxage" ? .notStored(.notReusable) : .fetch)
        } + [
            CacheCase(
                id: "authorization-same-credentials", firstRequest: [("Authorization", "FOO")], response: fresh,
                request: [("authorization", "FOO")], expected: .fresh),
            CacheCase(
                id: "authorization-other-credentials", firstRequest: [("Authorization", "FOO")], response: fresh,
                request: [("Authorization", "BAR")], expected: .fetch),
            CacheCase(
                id: "authorization-added-later", response: fresh, request: [("Authorization", "FOO")], expected: .fetch),
        ]

    /// The precondition fields sent to validate a stale response (RFC 9111 section 4.3.1).
    static let validation: [CacheCase] = [
        CacheCase(
            id: "conditional-etag-strong-generate",
            response: [
                ("Cache-Control", "max-age=2"), ("Date", httpDate(0)), ("Template-A", "1"), ("ETag", "\"abcdef\""),
            ],
            expected: .etag("\"abcdef\"")),
        CacheCase(
            id: "conditional-etag-weak-generate-weak",
            response: [("Cache-Control", "max-age=2"), ("Date", httpDate(0)), ("ETag", "W/\"abcdef\"")],
            expected: .etag("W/\"abcdef\"")),
        // Sent back as received: the suite's check expects quotes added.
        CacheCase(
            id: "conditional-etag-strong-generate-unquoted",
            response: [("Cache-Control", "max-age=2"), ("Date", httpDate(0)), ("ETag", "abcdef")],
            expected: .etag("abcdef")),
        CacheCase(
            id: "conditional-lm-stale",
            response: [("Cache-Control", "max-age=2"), ("Date", httpDate(0)), ("Last-Modified", httpDate(-3000))],
            expected: .modifiedSince(-3000)),
        CacheCase(
            id: "conditional-etag-and-lm",
            response: [("Cache-Control", "max-age=2"), ("ETag", "\"v1\""), ("Last-Modified", httpDate(-3000))],
            expected: .revalidate(CacheValidation(ifNoneMatch: "\"v1\"", ifModifiedSince: httpDate(-3000)))),
        CacheCase(
            id: "conditional-date-only", response: [("Cache-Control", "max-age=2"), ("Date", httpDate(-1))],
            expected: .modifiedSince(-1)),
        CacheCase(
            id: "conditional-etag-vary-headers", firstRequest: [("Abc", "123")],
            response: [("Expires", httpDate(1)), ("ETag", "\"abcdef\""), ("Date", httpDate(0)), ("Vary", "Abc")],
            request: [("Abc", "123")], expected: .etag("\"abcdef\"")),
        // A tag that could not be sent back in a field is no validator.
        CacheCase(
            id: "conditional-etag-with-control-character",
            response: [("Cache-Control", "max-age=2"), ("ETag", "\"a\r\nX-Injected: 1\"")], expected: .fetch),
    ]

    @Test("Request directives", arguments: requestDirectives)
    func directives(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Pragma in requests", arguments: pragma)
    func pragmaField(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Vary", arguments: vary + varyStar)
    func varyField(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Authorization", arguments: authorization)
    func credentials(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Validation fields", arguments: validation)
    func validationFields(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    /// vary-invalidate: two variants of one URL are kept and each answers its own requests; the most recent by
    /// `Date` wins among several that match (RFC 9111 section 4.1).
    @Test("Several variants per URL")
    func severalVariants() throws {
        func stored(_ foo: String?, date: TimeInterval) throws -> CachedResponseHead {
            let request = CacheScenario.headers(foo.map { [("Foo", $0)] } ?? [])
            let response = CacheScenario.headers(
                Array(Self.varying.dropLast()) + [("Date", httpDate(date)), ("Vary", "Foo")])
            return try #require(
                CachedResponseHead(
                    status: 200, responseHeaders: response, requestHeaders: request, requestTime: CacheScenario.base,
                    responseTime: CacheScenario.base))
        }
        let variants = [try stored("1", date: 0), try stored("2", date: 0), try stored(nil, date: 0)]
        #expect(variants[0].variant.key != variants[1].variant.key)
        #expect(CacheLookup.selected(among: variants, requestHeaders: ["Foo": "1"])?.index == 0)
        #expect(CacheLookup.selected(among: variants, requestHeaders: ["Foo": "2"])?.index == 1)
        #expect(CacheLookup.selected(among: variants, requestHeaders: [:])?.index == 2)
        #expect(CacheLookup.selected(among: variants, requestHeaders: ["Foo": "3"])?.index == nil)
        #expect(CacheLookup.selected(among: variants, requestHeaders: ["Foo": "2"])?.head == variants[1])

        let older = try stored("1", date: -60)
        let newer = try stored("1", date: -10)
        #expect(CacheLookup.selected(among: [newer, older], requestHeaders: ["Foo": "1"])?.index == 0)
        #expect(CacheLookup.selected(among: [older, newer], requestHeaders: ["Foo": "1"])?.index == 1)
    }

    @Test("Methods other than GET write through, even with only-if-cached")
    func unsafeMethodsWriteThrough() throws {
        let head = try CacheScenario.store(CacheCase(id: "stored", response: Self.fresh, expected: .fresh)).get()
        for method in [HTTPMethod.post, .put, .delete, .head, "get"] {
            let decision = CacheLookup.decide(
                method: method, requestHeaders: ["Cache-Control": "only-if-cached"], stored: head,
                now: CacheScenario.base)
            #expect(decision == .fetch, "\(method)")
        }
    }
}
