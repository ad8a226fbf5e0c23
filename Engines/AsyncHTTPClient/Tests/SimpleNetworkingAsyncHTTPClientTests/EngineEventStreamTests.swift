import SimpleNetworkingAsyncHTTPClient
import Testing

@Suite("AsyncHTTPClient engine: event streams over loopback")
struct EngineEventStreamTests {
    let scenarios = EventStreamScenarios(makeTransport: { _ in AsyncHTTPClientTransport() })

    @Test("Each event-stream behaviour over loopback", arguments: EventStreamScenario.allCases)
    func scenario(_ scenario: EventStreamScenario) async throws {
        try await scenarios.run(scenario)
    }
}
