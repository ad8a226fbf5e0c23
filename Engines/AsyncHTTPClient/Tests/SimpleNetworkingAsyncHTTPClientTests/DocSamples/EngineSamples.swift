import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

// The samples of the DocC article AsyncHTTPClientEngine.md, between `DOC-SAMPLE: AsyncHTTPClientEngine/name` and
// `DOC-SAMPLE-END`: the root package's `ReadmeTests` checks that the article shows them verbatim, and the test below runs
// them against loopback.

struct Item: Decodable, Sendable {
    var id: Int
}

func engineSample(baseURL: URL) async throws -> [Item] {
    // DOC-SAMPLE: AsyncHTTPClientEngine/transport
    var settings = AsyncHTTPClientTransport.Configuration()
    settings.maximumConnectionsPerHost = 32
    let transport = AsyncHTTPClientTransport(configuration: settings)
    let api = SimpleNetworking(baseURL: baseURL, transport: transport)
    defer { api.close() }  // shuts down the transport's HTTPClient
    let items = try await api.get("/items").decode([Item].self)
    // DOC-SAMPLE-END
    return items
}

@Suite("The AsyncHTTPClientEngine article's sample")
struct EngineDocSampleTests {
    @Test("The engine sample decodes a list over loopback")
    func engine() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"[{"id":1},{"id":2}]"#) }
        let items = try await engineSample(baseURL: server.baseURL)
        #expect(items.map(\.id) == [1, 2])
    }
}
