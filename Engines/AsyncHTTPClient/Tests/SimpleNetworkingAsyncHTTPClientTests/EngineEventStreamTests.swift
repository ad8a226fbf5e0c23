import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

@Suite("AsyncHTTPClient engine: event streams over loopback")
struct EngineEventStreamTests {
    let scenarios = EventStreamScenarios(makeTransport: { _ in AsyncHTTPClientTransport() }, transportPauses: true)

    @Test("Each event-stream behaviour over loopback", arguments: EventStreamScenario.allCases)
    func scenario(_ scenario: EventStreamScenario) async throws {
        try await scenarios.run(scenario)
    }

    /// A client on `server` through an engine that opens at most `limit` connections to one host.
    static func client(_ server: MockServer, limit: Int) -> SimpleNetworking {
        var settings = AsyncHTTPClientTransport.Configuration()
        settings.maximumConnectionsPerHost = limit
        return SimpleNetworking(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(configuration: settings))
    }

    @Test("With room in maximumConnectionsPerHost, 9 streams stay open to one host and a plain request is answered")
    func streamsAndARequestShareTheHost() async throws {
        try await EventStreamScenarios.streamsAndARequestShareTheHost(streams: 9) { Self.client($0, limit: 12) }
    }

    @Test("A stream beyond maximumConnectionsPerHost waits for a connection until another stream ends")
    func streamsBeyondTheLimitWait() async throws {
        try await EventStreamScenarios.streamsBeyondTheLimitWait(limit: 2) { Self.client($0, limit: 2) }
    }
}
