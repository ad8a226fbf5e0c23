import Foundation
import SimpleNetworking
import Testing

/// The freshness cases of the http-tests cache conformance suite (`cc-freshness`, `cc-parse`, `age-parse`,
/// `expires-freshness`, `expires-parse`) that apply to a private cache, restated as rows: each stores the response
/// at 0 s and asks again 3 s later unless the row says otherwise. Where the suite's case is a "check" (no
/// requirement) or optional and this cache answers otherwise, a comment says why.
@Suite("Cache conformance: freshness")
struct CacheFreshnessConformanceTests {
    static let maxAge: [CacheCase] = [
        CacheCase(id: "freshness-none", expected: .notStored(.notReusable)),
        CacheCase(id: "freshness-max-age", response: [("Cache-Control", "max-age=3600")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-stale",
            response: [("Cache-Control", "max-age=2"), ("Date", httpDate(0)), ("Template-A", "1")],
            expected: .modifiedSince(0)),
        CacheCase(
            id: "freshness-max-age-0", response: [("Cache-Control", "max-age=0")], expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-max-minus-1", response: [("Cache-Control", "max-age=2147483647")], expected: .fresh),
        CacheCase(id: "freshness-max-age-max", response: [("Cache-Control", "max-age=2147483648")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-max-plus-1", response: [("Cache-Control", "max-age=2147483649")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-max-plus", response: [("Cache-Control", "max-age=99999999999")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-age",
            response: [("Date", httpDate(0)), ("Cache-Control", "max-age=3600"), ("Age", "7200")],
            expected: .modifiedSince(0)),
        CacheCase(
            id: "freshness-max-age-date", response: [("Date", httpDate(-7200)), ("Cache-Control", "max-age=3600")],
            expected: .modifiedSince(-7200)),
        CacheCase(
            id: "freshness-max-age-expires",
            response: [("Cache-Control", "max-age=3600"), ("Expires", httpDate(-7200)), ("Date", httpDate(0))],
            expected: .fresh),
        CacheCase(
            id: "freshness-max-age-expires-invalid",
            response: [("Cache-Control", "max-age=3600"), ("Expires", "0"), ("Date", httpDate(0))], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-0-expires",
            response: [("Expires", httpDate(3600)), ("Cache-Control", "max-age=0"), ("Date", httpDate(0))],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-extension", response: [("Cache-Control", "foobar, max-age=3600")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-case-insenstive", response: [("Cache-Control", "MaX-aGe=3600")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-negative", response: [("Cache-Control", "max-age=-3600")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-s-maxage-private", response: [("Cache-Control", "s-maxage=3600, max-age=1")],
            expected: .fetch),
        CacheCase(
            id: "freshness-max-age-s-maxage-private-multiple",
            response: [("Cache-Control", "s-maxage=3600"), ("Cache-Control", "max-age=1")], expected: .fetch),
        // The suite's shared-cache cases: a private cache ignores s-maxage, so max-age alone decides.
        CacheCase(
            id: "freshness-s-maxage-shared", response: [("Cache-Control", "s-maxage=3600")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-s-maxage-shared-longer", response: [("Cache-Control", "max-age=3600, s-maxage=1")],
            expected: .fresh),
        CacheCase(
            id: "freshness-max-age-s-maxage-shared-shorter", response: [("Cache-Control", "max-age=1, s-maxage=3600")],
            expected: .fetch),
    ]

    /// Directive syntax. RFC 9111 section 4.2.1 lets a cache either take the first of several `max-age` values or
    /// treat the response as stale, and encourages treating invalid values as stale: this cache does both, so the
    /// suite's "check" cases that expect reuse (`two-*`, `decimal-*`, `a100`, `100a`) are not reused here.
    static let directiveSyntax: [CacheCase] = [
        CacheCase(
            id: "freshness-max-age-two-fresh-stale-sameline", response: [("Cache-Control", "max-age=1800, max-age=1")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-two-fresh-stale-sepline",
            response: [("Cache-Control", "max-age=1800"), ("Cache-Control", "max-age=1")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-two-stale-fresh-sameline", response: [("Cache-Control", "max-age=1, max-age=1800")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-two-stale-fresh-sepline",
            response: [("Cache-Control", "max-age=1"), ("Cache-Control", "max-age=1800")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "max-age-repeated-same-value", response: [("Cache-Control", "max-age=3600, MAX-AGE=3600")],
            expected: .fresh),
        CacheCase(id: "freshness-max-age-quoted", response: [("Cache-Control", "max-age=\"3600\"")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-ignore-quoted",
            response: [("Cache-Control", "extension=\"max-age=3600\", max-age=1")], expected: .fetch),
        CacheCase(
            id: "freshness-max-age-ignore-quoted-rev",
            response: [("Cache-Control", "max-age=1, extension=\"max-age=3600\"")], expected: .fetch),
        CacheCase(
            id: "max-age-after-quoted-comma", response: [("Cache-Control", "ext=\"a, \\\"b\", max-age=3600")],
            expected: .fresh),
        CacheCase(
            id: "freshness-max-age-space-before-equals", response: [("Cache-Control", "max-age =3600")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-space-after-equals", response: [("Cache-Control", "max-age= 3600")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-leading-zero", response: [("Cache-Control", "max-age=003600")], expected: .fresh),
        CacheCase(
            id: "freshness-max-age-single-quoted", response: [("Cache-Control", "max-age='3600'")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-decimal-zero", response: [("Cache-Control", "max-age=3600.0")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-decimal-five", response: [("Cache-Control", "max-age=3600.5")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-a100", response: [("Cache-Control", "max-age=a3600")],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-max-age-100a", response: [("Cache-Control", "max-age=3600a")],
            expected: .notStored(.notReusable)),
    ]

    /// `Age`: the first line's first member, when it is delta-seconds.
    static let age: [CacheCase] =
        [
            ("age-parse-nonnumeric", ["abc"], CacheOutcome.fresh),
            ("age-parse-negative", ["-7200"], .fresh),
            ("age-parse-float", ["7200.0"], .fresh),
            ("age-parse-large-minus-one", ["2147483647"], .modifiedSince(0)),
            ("age-parse-large", ["2147483648"], .modifiedSince(0)),
            ("age-parse-larger", ["2147483649"], .modifiedSince(0)),
            ("age-parse-suffix", ["7200, 0"], .modifiedSince(0)),
            ("age-parse-prefix", ["0, 7200"], .fresh),
            ("age-parse-suffix-twoline", ["7200", "0"], .modifiedSince(0)),
            ("age-parse-prefix-twoline", ["0", "7200"], .fresh),
            ("age-parse-dup-0", ["0, 0"], .fresh),
            ("age-parse-dup-0-twoline", ["0", "0"], .fresh),
            ("age-parse-parameter", ["7200;foo=bar"], .modifiedSince(0)),
            ("age-parse-numeric-parameter", ["7200;foo=111"], .modifiedSince(0)),
        ].map { id, ages, expected in
            CacheCase(
                id: id,
                response: [("Date", httpDate(0)), ("Cache-Control", "max-age=3600")] + ages.map { ("Age", $0) },
                expected: expected)
        } + [
            CacheCase(
                id: "age-parse-dup-old",
                response: [
                    ("Date", httpDate(0)), ("Cache-Control", "max-age=10000"), ("Age", "3600"), ("Age", "3600"),
                ],
                expected: .fresh)
        ]

    static let expires: [CacheCase] = [
        CacheCase(
            id: "freshness-expires-future", response: [("Expires", httpDate(2_592_000)), ("Date", httpDate(0))],
            expected: .fresh),
        CacheCase(
            id: "freshness-expires-past", response: [("Expires", httpDate(-2_592_000)), ("Date", httpDate(0))],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-expires-present", response: [("Expires", httpDate(0)), ("Date", httpDate(0))],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-expires-old-date", response: [("Expires", httpDate(300)), ("Date", httpDate(400))],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-expires-invalid", response: [("Expires", "0"), ("Date", httpDate(0))],
            expected: .notStored(.notReusable)),
        CacheCase(
            id: "freshness-expires-invalid-date", response: [("Date", "foo"), ("Expires", httpDate(10))],
            expected: .fresh),
        CacheCase(
            id: "freshness-expires-age-slow-date",
            response: [("Date", httpDate(-10)), ("Expires", httpDate(10)), ("Age", "25")],
            expected: .modifiedSince(-10)),
        CacheCase(
            id: "freshness-expires-age-fast-date",
            response: [("Date", httpDate(10)), ("Expires", httpDate(20)), ("Age", "15")],
            expected: .modifiedSince(10)),
    ]

    /// `Expires` syntax, with `Date` at 0 (2024-01-01): the three date forms, without regard to case (RFC 9111
    /// section 4.2), are fresh; anything else is already expired (section 5.3).
    static let expiresSyntax: [CacheCase] = [
        ("freshness-expires-32bit", ["Tue, 19 Jan 2038 14:14:08 GMT"], CacheOutcome.fresh),
        ("freshness-expires-far-future", ["Sun, 21 Nov 2286 04:46:39 GMT"], .fresh),
        ("freshness-expires-rfc850", ["Thursday, 18-Aug-50 02:01:18 GMT"], .fresh),
        ("freshness-expires-ansi-c", ["Thu Aug  8 02:01:18 2050"], .fresh),
        ("freshness-expires-wrong-case-weekday", ["THU, 18 Aug 2050 02:01:18 GMT"], .fresh),
        ("freshness-expires-wrong-case-month", ["Thu, 18 AUG 2050 02:01:18 GMT"], .fresh),
        ("freshness-expires-wrong-case-tz", ["Thu, 18 Aug 2050 02:01:18 gMT"], .fresh),
        ("freshness-expires-invalid-utc", ["Thu, 18 Aug 2050 02:01:18 UTC"], .notStored(.notReusable)),
        ("freshness-expires-invalid-aest", ["Thu, 18 Aug 2050 02:01:18 AEST"], .notStored(.notReusable)),
        ("freshness-expires-invalid-2-digit-year", ["Thu, 18 Aug 50 02:01:18 GMT"], .notStored(.notReusable)),
        ("freshness-expires-invalid-no-comma", ["Thu 18 Aug 2050 02:01:18 GMT"], .notStored(.notReusable)),
        ("freshness-expires-invalid-multiple-spaces", ["Thu, 18  Aug  2050 02:01:18 GMT"], .notStored(.notReusable)),
        ("freshness-expires-invalid-date-dashes", ["Thu, 18-Aug-2050 02:01:18 GMT"], .notStored(.notReusable)),
        ("freshness-expires-invalid-time-periods", ["Thu, 18 Aug 2050 02.01.18 GMT"], .notStored(.notReusable)),
        ("freshness-expires-invalid-1-digit-hour", ["Thu, 18 Aug 2050 2:01:18 GMT"], .notStored(.notReusable)),
        (
            "freshness-expires-invalid-multiple-lines",
            ["Thu, 18 Aug 2050 2:01:18 GMT", "Thu, 18 Aug 2050 2:01:19 GMT"], .notStored(.notReusable)
        ),
        // Several valid lines that disagree: stale, as several max-age values (section 4.2.1).
        (
            "expires-two-valid-lines-disagreeing",
            ["Thu, 18 Aug 2050 02:01:18 GMT", "Fri, 19 Aug 2050 02:01:18 GMT"], .notStored(.notReusable)
        ),
        ("expires-two-equal-lines", ["Thu, 18 Aug 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 GMT"], .fresh),
    ].map { id, lines, expected in
        CacheCase(id: id, response: lines.map { ("Expires", $0) } + [("Date", httpDate(0))], expected: expected)
    }

    @Test("max-age, Expires and Date", arguments: maxAge + expires)
    func freshness(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Cache-Control directive syntax", arguments: directiveSyntax)
    func syntax(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Age field values", arguments: age)
    func ageValues(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }

    @Test("Expires field values", arguments: expiresSyntax)
    func expiresValues(_ row: CacheCase) {
        #expect(CacheScenario.outcome(row) == row.expected)
    }
}
