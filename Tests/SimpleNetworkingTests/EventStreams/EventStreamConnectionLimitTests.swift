import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Event streams and the connection limit per host, on the URLSession transport")
struct EventStreamConnectionLimitTests {
    @Test("With room in the limit, 9 streams stay open to one host and a plain request beside them is answered")
    func streamsAndARequestShareTheHost() async throws {
        try await EventStreamScenarios.streamsAndARequestShareTheHost(streams: 9) { server in
            var configuration = SimpleNetworking.Configuration()
            configuration.maximumConnectionsPerHost = 12
            return SimpleNetworking(baseURL: server.baseURL, configuration: configuration)
        }
    }

    @Test("A stream beyond the limit waits for a connection until another stream ends")
    func streamsBeyondTheLimitWait() async throws {
        try await EventStreamScenarios.streamsBeyondTheLimitWait(limit: 2) { server in
            var configuration = SimpleNetworking.Configuration()
            configuration.maximumConnectionsPerHost = 2
            return SimpleNetworking(baseURL: server.baseURL, configuration: configuration)
        }
    }
}
