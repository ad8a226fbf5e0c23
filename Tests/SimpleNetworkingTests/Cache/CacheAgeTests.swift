import Foundation
import SimpleNetworking
import Testing

/// Age and freshness lifetime (RFC 9111 sections 4.2.1 and 4.2.3), and the `Age` sent with a stored response
/// (http-tests `other-age-*`).
@Suite("Cache rules: age and freshness lifetime")
struct CacheAgeTests {
    struct AgeRow: Sendable, CustomTestStringConvertible {
        var id: String
        var fields: [(String, String)]
        /// When the request was sent and the response received, in seconds from the base; then now.
        var requestTime: TimeInterval = 0
        var responseTime: TimeInterval = 0
        var now: TimeInterval
        var age: TimeInterval

        var testDescription: String { id }
    }

    /// current_age = max(apparent_age, age_value + response_delay) + resident_time, each term at least 0.
    static let ages: [AgeRow] = [
        AgeRow(
            id: "other-age-gen", fields: [("Cache-Control", "max-age=100000"), ("Date", httpDate(0))], now: 3, age: 3),
        AgeRow(
            id: "other-age-update-expires",
            fields: [("Expires", httpDate(2_592_000)), ("Date", httpDate(0)), ("Age", "30")],
            now: 3, age: 33),
        AgeRow(
            id: "other-age-update-max-age",
            fields: [("Cache-Control", "max-age=100000"), ("Date", httpDate(0)), ("Age", "30")], now: 3, age: 33),
        AgeRow(id: "apparent-age", fields: [("Date", httpDate(-100))], now: 10, age: 110),
        AgeRow(id: "apparent-age-wins", fields: [("Date", httpDate(-100)), ("Age", "50")], now: 0, age: 100),
        AgeRow(id: "age-value-wins", fields: [("Date", httpDate(-10)), ("Age", "50")], now: 0, age: 50),
        AgeRow(
            id: "response-delay", fields: [("Date", httpDate(0)), ("Age", "10")], requestTime: -4, responseTime: 0,
            now: 6,
            age: 20),
        AgeRow(id: "date-in-the-future", fields: [("Date", httpDate(3600))], now: 5, age: 5),
        AgeRow(id: "no-date", fields: [], now: 7, age: 7),
        AgeRow(id: "invalid-date", fields: [("Date", "yesterday")], now: 7, age: 7),
        AgeRow(
            id: "clock-went-back", fields: [("Date", httpDate(0))], requestTime: 5, responseTime: 0, now: -60, age: 0),
        AgeRow(id: "huge-age", fields: [("Age", "99999999999")], now: 1, age: 2_147_483_649),
    ]

    @Test("Current age", arguments: ages)
    func currentAge(_ row: AgeRow) {
        let base = CacheScenario.base
        let fields = CacheResponseFields(CacheScenario.headers(row.fields), now: base)
        let age = CacheFreshness.currentAge(
            fields: fields, requestTime: base.addingTimeInterval(row.requestTime),
            responseTime: base.addingTimeInterval(row.responseTime), now: base.addingTimeInterval(row.now))
        #expect(age == row.age)
    }

    @Test(
        "The Age field sent",
        arguments: [
            (0.0, 0), (2.9, 2), (3.0, 3), (-1.0, 0), (2_147_483_649.0, 2_147_483_648), (.infinity, 2_147_483_648),
            (.nan, 2_147_483_648),
        ] as [(TimeInterval, Int)])
    func ageField(age: TimeInterval, value: Int) {
        #expect(CacheFreshness.ageFieldValue(age) == value)
    }

    @Test("A stored response's Age is sent with the lookup")
    func ageInDecision() throws {
        let row = CacheCase(
            id: "other-age-update-max-age",
            response: [("Cache-Control", "max-age=100000"), ("Date", httpDate(0)), ("Age", "30")], expected: .fresh)
        let stored = try CacheScenario.store(row).get()
        let decision = CacheLookup.decide(
            method: .get, requestHeaders: [:], stored: stored, now: CacheScenario.base.addingTimeInterval(3))
        #expect(decision == .serveFresh(age: 33))
    }

    @Test(
        "Freshness lifetime and its source",
        arguments: [
            (200, [("Cache-Control", "max-age=60"), ("Expires", httpDate(600))], 60.0, CacheFreshness.Source.maxAge),
            (200, [("Cache-Control", "max-age=bad"), ("Expires", httpDate(600))], 0, .maxAge),
            (200, [("Cache-Control", "s-maxage=60")], 0, .none),
            (200, [("Expires", httpDate(600)), ("Date", httpDate(0))], 600, .expires),
            (200, [("Expires", httpDate(600)), ("Date", httpDate(-100))], 700, .expires),
            (200, [("Expires", httpDate(600))], 600, .expires),
            (200, [("Expires", httpDate(-600)), ("Date", httpDate(0))], 0, .expires),
            (200, [("Expires", "never"), ("Last-Modified", httpDate(-1000))], 0, .expires),
            (200, [("Last-Modified", httpDate(-1000)), ("Date", httpDate(0))], 100, .heuristic),
            (404, [("Last-Modified", httpDate(-1000)), ("Date", httpDate(0))], 100, .heuristic),
            (201, [("Last-Modified", httpDate(-1000)), ("Date", httpDate(0))], 0, .none),
            (
                201, [("Last-Modified", httpDate(-1000)), ("Date", httpDate(0)), ("Cache-Control", "public")], 100,
                .heuristic
            ),
            (200, [("Last-Modified", httpDate(-100_000_000)), ("Date", httpDate(0))], 86_400, .heuristic),
            (200, [("Date", httpDate(0))], 0, .none),
        ] as [(Int, [(String, String)], TimeInterval, CacheFreshness.Source)])
    func lifetime(status: Int, fields: [(String, String)], lifetime: TimeInterval, source: CacheFreshness.Source) {
        let parsed = CacheResponseFields(CacheScenario.headers(fields), now: CacheScenario.base)
        let freshness = CacheFreshness(status: status, fields: parsed, responseTime: CacheScenario.base)
        #expect(freshness == CacheFreshness(lifetime: lifetime, source: source))
    }
}
