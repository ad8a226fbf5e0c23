import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

func cachingSetupSample(baseURL: URL) async throws -> (SimpleNetworking, [ResponseSource]) {
    // DOC-SAMPLE: HTTPCaching/setup
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-cache")
    var configuration = SimpleNetworking.Configuration()
    configuration.cache = .disk(at: folder, maximumBytes: 50_000_000)
    let api = SimpleNetworking(baseURL: baseURL, configuration: configuration)

    let first = try await api.get("/catalog").response()  // from the server, stored
    let second = try await api.get("/catalog").response()  // fresh: from the cache, nothing sent
    print(first.source, second.source)  // network cache
    // DOC-SAMPLE-END
    configuration.cache?.removeAll()
    return (api, [first.source, second.source])
}

func cachingDirectivesSample(api: SimpleNetworking) async throws -> [ResponseSource] {
    // DOC-SAMPLE: HTTPCaching/directives
    // Validate even a fresh response; accept one up to a minute stale when offline.
    let latest = try await api.get("/catalog").header("Cache-Control", "no-cache").response()
    let offline = try await api.get("/catalog").header("Cache-Control", "only-if-cached, max-stale=60").response()
    print(latest.source, offline.source)  // revalidated (or network), cache
    // DOC-SAMPLE-END
    return [latest.source, offline.source]
}

func cachingSizeSample(baseURL: URL) async throws -> Int {
    // DOC-SAMPLE: HTTPCaching/size
    let cache = HTTPCache.memory(maximumBytes: 10_000_000)
    var settings = SimpleNetworking.Configuration()
    settings.cache = cache
    let client = SimpleNetworking(baseURL: baseURL, configuration: settings)
    _ = try await client.get("/catalog").response()
    print(cache.storedBytes)  // the stored response's headers and body
    cache.removeAll()  // the next request goes to the server
    // DOC-SAMPLE-END
    // After removeAll() the request goes to the server again, and its response is counted once stored.
    _ = try await client.get("/catalog").response()
    client.close()
    return cache.storedBytes
}

@Suite("The Caching article's samples run")
struct CachingSampleTests {
    private func catalogServer() throws -> MockServer {
        let server = try MockServer()
        server.route { request in
            if request.header("If-None-Match") == #""c1""# { return MockResponse(status: 304) }
            return .json(#"["tea"]"#, headers: [("Cache-Control", "max-age=300"), ("ETag", #""c1""#)])
        }
        return server
    }

    @Test("A disk cache answers the second request; no-cache revalidates; only-if-cached answers from storage")
    func samples() async throws {
        let server = try catalogServer()
        defer { server.shutdown() }

        // The sample's folder, as a run before this one may have left it.
        try? FileManager.default.removeItem(
            at: FileManager.default.temporaryDirectory.appendingPathComponent("api-cache"))
        let (api, sources) = try await cachingSetupSample(baseURL: server.baseURL)
        defer { api.close() }
        #expect(sources == [.network, .cache])
        _ = try await api.get("/catalog").response()
        #expect(try await cachingDirectivesSample(api: api) == [.revalidated, .cache])
        #expect(server.requests.last?.header("If-None-Match") == #""c1""#)
    }

    @Test("storedBytes counts the stored response until removeAll()")
    func size() async throws {
        let server = try catalogServer()
        defer { server.shutdown() }
        #expect(try await cachingSizeSample(baseURL: server.baseURL) > 0)
        #expect(server.requestCount == 2)
    }
}

@Suite("The Caching article's conformance sample runs")
struct CachingConformanceSampleTests {
    @Test("A case of the cache conformance kit over URLSession")
    func conformance() async {
        // DOC-SAMPLE: HTTPCaching/conformance
        let kit = CacheConformance { _ in URLSessionTransport(configuration: SimpleNetworking.Configuration()) }
        let failure = await kit.run("freshness-max-age-stale")  // one case; run() runs them all
        #expect(failure == nil, "\(failure ?? "")")
        // DOC-SAMPLE-END
    }
}
