import Foundation
import SimpleNetworking

/// Freshness (RFC 9111 section 4.2): the suite's `cc-freshness`, `cc-parse`, `age-parse`, `expires-freshness`,
/// `expires-parse` and `heuristic-freshness` cases. Each stores the response at 0 s and asks again 3 s later unless
/// it says otherwise.
extension CacheConformance {
    static let freshnessCases: [Case] = [
        reuse("freshness-none", response: [], .fetched),
        reuse("freshness-max-age", response: [("Cache-Control", "max-age=3600")], .fresh),
        reuse(
            "freshness-max-age-stale", response: [("Cache-Control", "max-age=2"), ("Date", .date(0))],
            modifiedSince(0)),
        reuse("freshness-max-age-0", response: [("Cache-Control", "max-age=0")], .fetched),
        reuse("freshness-max-age-max-plus", response: [("Cache-Control", "max-age=99999999999")], .fresh),
        reuse(
            "freshness-max-age-age",
            response: [("Date", .date(0)), ("Cache-Control", "max-age=3600"), ("Age", "7200")],
            modifiedSince(0)),
        reuse(
            "freshness-max-age-date", response: [("Date", .date(-7200)), ("Cache-Control", "max-age=3600")],
            modifiedSince(-7200)),
        reuse(
            "freshness-max-age-expires",
            response: [("Cache-Control", "max-age=3600"), ("Expires", .date(-7200)), ("Date", .date(0))], .fresh),
        reuse("freshness-max-age-extension", response: [("Cache-Control", "foobar, max-age=3600")], .fresh),
        reuse("freshness-max-age-case-insenstive", response: [("Cache-Control", "MaX-aGe=3600")], .fresh),
        reuse("freshness-max-age-negative", response: [("Cache-Control", "max-age=-3600")], .fetched),
        // A private cache ignores s-maxage: max-age=1 decides.
        reuse(
            "freshness-max-age-s-maxage-private", response: [("Cache-Control", "s-maxage=3600, max-age=1")], .fetched),
        reuse("freshness-max-age-quoted", response: [("Cache-Control", "max-age=\"3600\"")], .fresh),
        reuse("freshness-max-age-leading-zero", response: [("Cache-Control", "max-age=003600")], .fresh),
        // Several max-age values, or an invalid one: stale (RFC 9111 section 4.2.1).
        reuse(
            "freshness-max-age-two-fresh-stale-sameline", response: [("Cache-Control", "max-age=1800, max-age=1")],
            .fetched),
        reuse(
            "freshness-max-age-ignore-quoted", response: [("Cache-Control", "extension=\"max-age=3600\", max-age=1")],
            .fetched),
        reuse("freshness-max-age-space-after-equals", response: [("Cache-Control", "max-age= 3600")], .fetched),
        // Ours: a stored response answers with its current age, the Age it came with plus the time since.
        Case(
            "freshness-age-sent",
            steps: [
                Step(
                    response: ServerResponse(fields: [
                        ("Cache-Control", "max-age=3600"), ("Date", .date(0)), ("Age", "100"),
                    ]),
                    sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                Step(wait: 3, sending: .notSent, answer: .response(.cache, status: 200, bodyOfStep: 1), age: 103),
            ]),
    ]

    static let ageAndExpiresCases: [Case] = [
        reuse("age-parse-nonnumeric", response: ageResponse("abc"), .fresh),
        reuse("age-parse-negative", response: ageResponse("-7200"), .fresh),
        reuse("age-parse-suffix", response: ageResponse("7200, 0"), modifiedSince(0)),
        reuse("age-parse-prefix", response: ageResponse("0, 7200"), .fresh),
        reuse("age-parse-large", response: ageResponse("2147483648"), modifiedSince(0)),
        reuse("age-parse-parameter", response: ageResponse("7200;foo=bar"), modifiedSince(0)),
        reuse(
            "freshness-expires-future", response: [("Expires", .date(2_592_000)), ("Date", .date(0))], .fresh),
        reuse("freshness-expires-past", response: [("Expires", .date(-2_592_000)), ("Date", .date(0))], .fetched),
        reuse("freshness-expires-present", response: [("Expires", .date(0)), ("Date", .date(0))], .fetched),
        reuse("freshness-expires-old-date", response: [("Expires", .date(300)), ("Date", .date(400))], .fetched),
        reuse("freshness-expires-invalid", response: [("Expires", "0"), ("Date", .date(0))], .fetched),
        reuse("freshness-expires-invalid-date", response: [("Date", "foo"), ("Expires", .date(10))], .fresh),
        reuse(
            "freshness-expires-age-slow-date", response: [("Date", .date(-10)), ("Expires", .date(10)), ("Age", "25")],
            modifiedSince(-10)),
        reuse("freshness-expires-32bit", response: expiresResponse("Tue, 19 Jan 2038 14:14:08 GMT"), .fresh),
        reuse("freshness-expires-rfc850", response: expiresResponse("Thursday, 18-Aug-50 02:01:18 GMT"), .fresh),
        reuse("freshness-expires-ansi-c", response: expiresResponse("Thu Aug  8 02:01:18 2050"), .fresh),
        reuse("freshness-expires-wrong-case-month", response: expiresResponse("Thu, 18 AUG 2050 02:01:18 GMT"), .fresh),
        reuse("freshness-expires-invalid-utc", response: expiresResponse("Thu, 18 Aug 2050 02:01:18 UTC"), .fetched),
        reuse(
            "freshness-expires-invalid-no-comma", response: expiresResponse("Thu 18 Aug 2050 02:01:18 GMT"), .fetched),
    ]

    /// Heuristic freshness (RFC 9111 section 4.2.2): a tenth of the time since `Last-Modified`, for the statuses
    /// RFC 9110 section 15.1 lists or a `public` response, at most a day.
    static let heuristicCases: [Case] =
        [200, 203, 404, 410, 501].map { status in
            reuse(
                "heuristic-\(status)-cached", status: status,
                response: [("Last-Modified", .date(-86400)), ("Date", .date(0))],
                .fresh)
        }
        + [201, 403, 503].map { status in
            reuse(
                "heuristic-\(status)-not_cached", status: status,
                response: [("Last-Modified", .date(-86400)), ("Date", .date(0))], .fetched)
        }
        + [
            reuse(
                "heuristic-599-cached", status: 599,
                response: [("Last-Modified", .date(-86400)), ("Date", .date(0)), ("Cache-Control", "public")], .fresh),
            // 10% of 10 s is 1 s: stale 3 s later; 10% of 60 s is 6 s: still fresh.
            reuse(
                "heuristic-delta-10", response: [("Last-Modified", .date(-10)), ("Date", .date(0))], modifiedSince(-10)),
            reuse("heuristic-delta-60", response: [("Last-Modified", .date(-60)), ("Date", .date(0))], .fresh),
            // At most a day, however old the resource.
            reuse(
                "heuristic-limit-passed", response: [("Last-Modified", .date(-8_640_000)), ("Date", .date(0))],
                after: 86_401, modifiedSince(-8_640_000)),
            // Last-Modified after Date: no heuristic lifetime.
            reuse(
                "heuristic-last-modified-in-future", response: [("Last-Modified", .date(600)), ("Date", .date(0))],
                modifiedSince(600)),
        ]

    /// A response fresh for an hour by `max-age`, generated now, with these `Age` lines.
    private static func ageResponse(_ ages: String...) -> Fields {
        [("Date", .date(0)), ("Cache-Control", "max-age=3600")] + ages.map { (name: "Age", value: .text($0)) }
    }

    /// A response generated now that expires at `expires`, as written.
    private static func expiresResponse(_ expires: String) -> Fields {
        [("Expires", .text(expires)), ("Date", .date(0))]
    }
}
