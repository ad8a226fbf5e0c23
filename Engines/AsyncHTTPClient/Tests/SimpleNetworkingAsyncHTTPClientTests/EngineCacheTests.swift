import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

/// The client's HTTP cache over the engine, as over URLSession (the library's `CacheStageTests`): the cache is a
/// stage of the pipeline, above every transport.
@Suite("AsyncHTTPClient engine: HTTP cache")
struct EngineCacheTests {
    @Test("Fresh responses answer from the cache, stale ones are revalidated, a 304 merges, a POST invalidates")
    func cacheOverTheEngine() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.method == "POST" { return .status(204) }
            if request.header("If-None-Match") == #""e1""# {
                return MockResponse(status: 304, headers: [("ETag", #""e1""#), ("X-Revalidated", "yes")])
            }
            return .json(#"{"n": 1}"#, headers: [("ETag", #""e1""#), ("Cache-Control", "max-age=10")])
        }
        let clock = TestClock()
        var configuration = SimpleNetworking.Configuration()
        configuration.cache = .memory(maximumBytes: 1 << 20)
        configuration.clock = clock.simpleClock
        configuration.retryPolicy = .never
        let client = SimpleNetworking(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), configuration: configuration)
        defer { client.close() }

        let first = try await client.get("/item").response()
        let fresh = try await client.get("/item").response()
        clock.advance(by: 60)
        let revalidated = try await client.get("/item").response()
        _ = try await client.post("/item").response()
        let afterPost = try await client.get("/item").response()

        #expect(
            [first.source, fresh.source, revalidated.source, afterPost.source] == [
                .network, .cache, .revalidated, .network,
            ])
        #expect(revalidated.body == first.body)
        #expect(revalidated.headers["X-Revalidated"] == "yes")
        #expect(
            server.requests.map { "\($0.method) \($0.header("If-None-Match") ?? "-")" } == [
                "GET -", #"GET "e1""#, "POST -", "GET -",
            ])
    }
}
