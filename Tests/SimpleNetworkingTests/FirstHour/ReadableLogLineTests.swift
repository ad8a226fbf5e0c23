import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Log lines print readable durations and tell requests apart")
struct ReadableLogLineTests {
    /// Whether every number before ` ms` has at most one decimal and every number before ` s` at most two.
    private func durationsAreShort(_ text: String) -> Bool {
        let long = #/\d+\.\d{2,} ms|\d+\.\d{3,} s\b/#
        return text.firstMatch(of: long) == nil
    }

    @Test(
        "An attempt's delay prints in milliseconds below a second and in seconds from one on",
        arguments: [
            (0.0, "#1 after 0 ms: 200"), (0.19099801170521466, "#1 after 191 ms: 200"),
            (0.2124, "#1 after 212.4 ms: 200"), (0.99996, "#1 after 1 s: 200"), (1.5, "#1 after 1.5 s: 200"),
            (2.254_9, "#1 after 2.25 s: 200"), (30, "#1 after 30 s: 200"),
        ])
    func attemptDelays(delay: TimeInterval, expected: String) {
        #expect(RequestAttempt(number: 1, statusCode: 200, error: nil, delay: delay).description == expected)
    }

    @Test("Errors print their seconds readably")
    func errorDurations() {
        let deadline = SimpleNetworkingError.deadlineExceeded(seconds: 0.19099801170521466, attempts: [])
        #expect(deadline.description.contains("within its 191 ms deadline"), "\(deadline)")
        let idle = SimpleNetworkingError.eventStreamIdle(seconds: 45)
        #expect(idle.description.contains("sent nothing for 45 s,"), "\(idle)")
    }

    @Test("A retried request's log lines: short durations, one id per request, another id for the next request")
    func retriedRequestLines() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.status(503))
        server.route { _ in .status(200) }
        let lines = Locked<[NetworkEvent]>([])
        let api = makeLoopbackClient(server) { configuration in
            configuration.retryPolicy = .default
            configuration.clock = VirtualClock().clock  // the backoff passes without a real wait
            configuration.eventHandler = { event in lines.withLock { $0.append(event) } }
        }
        defer { api.close() }

        let response = try await api.get("/first").response()
        _ = try await api.get("/second").response()

        #expect(response.attempts.count == 2)
        for attempt in response.attempts { #expect(durationsAreShort(attempt.description), "\(attempt)") }
        let events = lines.current
        #expect(events.contains { if case .retryScheduled = $0.kind { true } else { false } })
        for event in events { #expect(durationsAreShort(event.description), "\(event)") }
        // "[1A2B3C4D] GET ...": the bracketed id is the same on each line of a request and differs between them.
        func ids(of path: String) -> Set<Substring> {
            Set(events.filter { $0.url.hasSuffix(path) }.map { $0.description.prefix(10) })
        }
        #expect(ids(of: "/first").count == 1 && ids(of: "/second").count == 1)
        #expect(ids(of: "/first") != ids(of: "/second"))
    }
}
