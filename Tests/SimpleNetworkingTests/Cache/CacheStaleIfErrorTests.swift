import Foundation
import SimpleNetworking
import Testing

/// Serving a stored response when revalidation fails (RFC 5861 section 4, RFC 9111 sections 4.2.4 and 4.3.3), with
/// the facts of the http-tests suite `stale`: the response stored at 0 s, revalidation failing 3 s later.
@Suite("Cache rules: stale-if-error")
struct CacheStaleIfErrorTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var id: String
        var response: [(String, String)]
        var request: [(String, String)] = []
        var failure: CacheStaleIfError.Failure = .transport
        var elapsed: TimeInterval = 3
        /// The `Age` to serve with, or `nil` when the failure goes through.
        var age: Int?

        var testDescription: String { id }
    }

    static let rows: [Row] = [
        Row(id: "stale-sie-close", response: [("Cache-Control", "max-age=2, stale-if-error=60")], age: 3),
        Row(
            id: "stale-sie-503", response: [("Cache-Control", "max-age=2, stale-if-error=60")],
            failure: .status(503), age: 3),
        Row(
            id: "stale-sie-500", response: [("Cache-Control", "max-age=2, stale-if-error=60")], failure: .status(500),
            age: 3),
        Row(
            id: "stale-sie-502", response: [("Cache-Control", "max-age=2, stale-if-error=60")], failure: .status(502),
            age: 3),
        Row(
            id: "stale-sie-504", response: [("Cache-Control", "max-age=2, stale-if-error=60")], failure: .status(504),
            age: 3),
        // Other statuses are answers, not errors, and go to the caller.
        Row(id: "stale-sie-501", response: [("Cache-Control", "max-age=2, stale-if-error=60")], failure: .status(501)),
        Row(id: "stale-sie-404", response: [("Cache-Control", "max-age=2, stale-if-error=60")], failure: .status(404)),
        Row(id: "stale-sie-window-passed", response: [("Cache-Control", "max-age=2, stale-if-error=60")], elapsed: 62),
        Row(
            id: "stale-sie-window-edge", response: [("Cache-Control", "max-age=2, stale-if-error=60")], elapsed: 61,
            age: 61),
        // Without permission a stale response is not served on error: the suite's checks stale-close and stale-503
        // expect it served, which section 4.2.4 allows a disconnected cache but does not require.
        Row(id: "stale-close", response: [("Cache-Control", "max-age=2"), ("Date", httpDate(0))]),
        Row(id: "stale-503", response: [("Cache-Control", "max-age=2"), ("Date", httpDate(0))], failure: .status(503)),
        Row(
            id: "stale-close-must-revalidate",
            response: [("Cache-Control", "max-age=2, must-revalidate, stale-if-error=60")]),
        Row(id: "stale-close-no-cache", response: [("Cache-Control", "max-age=2, no-cache, stale-if-error=60")]),
        // proxy-revalidate binds shared caches only.
        Row(
            id: "stale-close-proxy-revalidate",
            response: [("Cache-Control", "max-age=2, proxy-revalidate, stale-if-error=60")], age: 3),
        // The client may allow it too.
        Row(
            id: "stale-sie-request", response: [("Cache-Control", "max-age=2")],
            request: [("Cache-Control", "stale-if-error=30")], age: 3),
        Row(
            id: "stale-sie-request-no-cache", response: [("Cache-Control", "max-age=2, stale-if-error=60")],
            request: [("Cache-Control", "no-cache")]),
        Row(
            id: "stale-sie-request-larger-window", response: [("Cache-Control", "max-age=2, stale-if-error=5")],
            request: [("Cache-Control", "stale-if-error=600")], elapsed: 100, age: 100),
        // A fresh response revalidated because the client asked (max-age=0) may answer when that fails.
        Row(
            id: "stale-sie-fresh", response: [("Cache-Control", "max-age=600, stale-if-error=60")],
            request: [("Cache-Control", "max-age=0")], age: 3),
        Row(id: "stale-sie-invalid", response: [("Cache-Control", "max-age=2, stale-if-error=x")]),
    ]

    @Test("Stale responses after a failed revalidation", arguments: rows)
    func staleIfError(_ row: Row) throws {
        let stored = try #require(
            CachedResponseHead(
                status: 200, responseHeaders: CacheScenario.headers(row.response), requestHeaders: [:],
                requestTime: CacheScenario.base, responseTime: CacheScenario.base))
        let age = CacheStaleIfError.servableAge(
            after: row.failure, requestHeaders: CacheScenario.headers(row.request), stored: stored,
            now: CacheScenario.base.addingTimeInterval(row.elapsed))
        #expect(age == row.age)
    }
}
