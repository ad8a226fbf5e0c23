import Testing

@Suite("Event streams over loopback, on the URLSession transport")
struct EventStreamTests {
    let scenarios = EventStreamScenarios(makeTransport: { _ in nil })

    @Test("Each event-stream behaviour over loopback", arguments: EventStreamScenario.allCases)
    func scenario(_ scenario: EventStreamScenario) async throws {
        try await scenarios.run(scenario)
    }
}
