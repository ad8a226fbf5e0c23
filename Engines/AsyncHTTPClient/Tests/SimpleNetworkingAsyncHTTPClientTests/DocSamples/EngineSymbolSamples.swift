import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

// The Swift block of the `///` comment of `AsyncHTTPClientTransport`, between `SYMBOL-SAMPLE: File#name` and
// `SYMBOL-SAMPLE-END`: the root package's `ReadmeTests.SymbolDocs` checks that the comment shows it verbatim, and the
// test below runs it against loopback.

func engineSymbolSample(url: URL) async throws -> SimpleResponse {
    // SYMBOL-SAMPLE: Engines/AsyncHTTPClient/Sources/SimpleNetworkingAsyncHTTPClient/AsyncHTTPClientTransport.swift#use
    let transport = AsyncHTTPClientTransport()
    let client = SimpleNetworking(baseURL: url, transport: transport)
    // ...
    client.close()  // or transport.close(): shuts down the transport's HTTPClient
    // SYMBOL-SAMPLE-END
    return try await client.get("/status").response()
}

@Suite("The AsyncHTTPClientTransport symbol sample")
struct EngineSymbolSampleTests {
    @Test("A client closed as the sample shows sends nothing more")
    func closed() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"ok":true}"#) }
        await #expect(throws: SimpleNetworkingError.self) { try await engineSymbolSample(url: server.baseURL) }
        #expect(server.requestCount == 0)
    }
}
