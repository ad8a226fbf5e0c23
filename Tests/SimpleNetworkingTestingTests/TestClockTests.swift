import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("TestClock")
struct TestClockTests {
    @Test("Retry waits pass at once on paper: Retry-After and backoff are recorded, and now moves by them")
    func retriesWithoutRealWaits() async throws {
        let transport = MockTransport()
        transport.enqueue(.status(503, headers: ["Retry-After": "45"]))
        transport.enqueue(.failure(.networkConnectionLost))
        transport.enqueue(.json(#"{"id": 1}"#))
        let clock = TestClock()
        let start = clock.now
        var configuration = SimpleNetworking.Configuration()
        configuration.clock = clock.simpleClock
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 3, backoff: Backoff(base: 30, cap: 30))
        let api = SimpleNetworking(
            baseURL: URL(string: "https://api.example.com")!, transport: transport, configuration: configuration)
        let began = Date()

        let response = try await api.get("/users/1").response()

        #expect(response.statusCode == 200)
        #expect(transport.requestCount == 3)
        #expect(clock.waits.count == 2)
        #expect(clock.waits.first == 45)
        #expect(abs(clock.now.timeIntervalSince(start) - clock.waits.reduce(0, +)) < 0.001)
        // 75 s on paper. The bound is loose (a full suite on a busy machine once took 21 s to get this test's tasks
        // run, under ThreadSanitizer) and still fails if the waits were real.
        #expect(Date().timeIntervalSince(began) < 60)
    }

    @Test("advance(by:) moves now on; a negative step is ignored; a cancelled task's wait throws")
    func advanceAndCancellation() async throws {
        let clock = TestClock(start: Date(timeIntervalSince1970: 0))
        clock.advance(by: 5)
        clock.advance(by: -3)
        #expect(clock.now == Date(timeIntervalSince1970: 5))
        let sleep = clock.simpleClock.sleep
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await sleep(10)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(clock.waits.isEmpty)
    }
}
