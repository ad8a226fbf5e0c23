import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An environment picker: the base URL a client's provider returns, changed by the test between requests.
private final class Environment: Sendable {
    private let current: Locked<URL>

    init(_ url: URL) { current = Locked(url) }

    var url: URL { current.current }

    func select(_ url: URL) { current.set(url) }
}

@Suite("A base URL from a provider")
struct BaseURLProviderTests {
    /// A client on `environment` with a token in its default headers and automatic retries off.
    private func makeClient(_ environment: Environment) -> SimpleNetworking {
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .never
        configuration.defaultHeaders = ["Authorization": "Bearer token-1"]
        return SimpleNetworking(baseURLProvider: { environment.url }, configuration: configuration)
    }

    @Test("Each request goes to the environment selected when it is sent, with the same default headers")
    func switchesBetweenRequests() async throws {
        let serverA = try MockServer()
        let serverB = try MockServer()
        defer { serverA.shutdown(); serverB.shutdown() }
        serverA.route { _ in .text("A") }
        serverB.route { _ in .text("B") }
        let environment = Environment(serverA.url("/v1"))
        let api = makeClient(environment)
        defer { api.close() }

        #expect(try await api.get("/users").response().string == "A")
        environment.select(serverB.url("/v2/"))
        #expect(api.baseURL == serverB.url("/v2/"))
        api.defaultHeaders["Authorization"] = "Bearer token-2"
        #expect(try await api.get("/users").response().string == "B")
        environment.select(serverA.url("/v1"))
        #expect(try await api.get("/again").response().string == "A")

        #expect(serverA.requests.map(\.path) == ["/v1/users", "/v1/again"])
        #expect(serverB.requests.map(\.path) == ["/v2/users"])
        #expect(serverA.requests.map { $0.header("Authorization") } == ["Bearer token-1", "Bearer token-2"])
        #expect(serverB.requests.first?.header("Authorization") == "Bearer token-2")
    }

    @Test("Default headers go only to the current base URL's origin")
    func defaultHeadersFollowTheCurrentOrigin() async throws {
        let serverA = try MockServer()
        let serverB = try MockServer()
        defer { serverA.shutdown(); serverB.shutdown() }
        serverA.route { _ in .text("A") }
        serverB.route { _ in .text("B") }
        let environment = Environment(serverA.baseURL)
        let api = makeClient(environment)
        defer { api.close() }

        _ = try await api.request(.get, url: serverB.url("/absolute")).response()
        environment.select(serverB.baseURL)
        _ = try await api.request(.get, url: serverB.url("/absolute")).response()
        _ = try await api.request(.get, url: serverA.url("/absolute")).response()

        #expect(serverB.requests.map { $0.header("Authorization") } == [nil, "Bearer token-1"])
        #expect(serverA.requests.map { $0.header("Authorization") } == [nil])
    }

    @Test("A redirect that leaves the current base URL's origin drops the credentials")
    func redirectsFollowTheCurrentOrigin() async throws {
        let serverA = try MockServer()
        let serverB = try MockServer()
        defer { serverA.shutdown(); serverB.shutdown() }
        serverA.route { request in
            request.path == "/start" ? .redirect(to: serverB.url("/landed").absoluteString) : .text("A")
        }
        serverB.route { request in
            request.path == "/start" ? .redirect(to: serverA.url("/landed").absoluteString) : .text("B")
        }
        let environment = Environment(serverA.baseURL)
        let api = makeClient(environment)
        defer { api.close() }

        #expect(try await api.get("/start").response().string == "B")
        environment.select(serverB.baseURL)
        #expect(try await api.get("/start").response().string == "A")

        #expect(serverA.requests.map(\.path) == ["/start", "/landed"])
        #expect(serverA.requests.map { $0.header("Authorization") } == ["Bearer token-1", nil])
        #expect(serverB.requests.map(\.path) == ["/landed", "/start"])
        #expect(serverB.requests.map { $0.header("Authorization") } == [nil, "Bearer token-1"])
    }

    @Test("A retry asks the provider again")
    func retryReadsTheNewValue() async throws {
        let serverA = try MockServer()
        let serverB = try MockServer()
        defer { serverA.shutdown(); serverB.shutdown() }
        serverA.route { _ in .status(503) }
        serverB.route { _ in .text("B") }
        let environment = Environment(serverA.baseURL)
        let api = makeClient(environment)
        defer { api.close() }

        let response = try await api.get("/item")
            .on(httpStatus: 503) { request, _ in
                environment.select(serverB.baseURL)  // fail over to the other environment
                request.retry()
                return false
            }
            .response()

        #expect(response.string == "B")
        #expect(serverA.requests.count == 1)
        #expect(serverB.requests.map { $0.header("Authorization") } == ["Bearer token-1"])
    }

    @Test(
        "An unusable value fails with invalidURL and nothing is sent; a usable one works again",
        arguments: ["ftp://files.example.com", "http://127.0.0.1:1/api?key=x", "mailto:someone@example.com"])
    func unusableValue(value: String) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let environment = Environment(try #require(URL(string: value)))
        let api = makeClient(environment)
        defer { api.close() }

        let error = await failure(of: api.get("/users"))
        guard case .invalidURL = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        environment.select(server.baseURL)
        #expect(try await api.get("/users").response().string == "ok")
        #expect(server.requests.map(\.path) == ["/users"])
    }

    @Test("Concurrent requests while the environment changes each reach one server, with the token")
    func concurrentSwitching() async throws {
        let serverA = try MockServer()
        let serverB = try MockServer()
        defer { serverA.shutdown(); serverB.shutdown() }
        serverA.route { _ in .status(204) }
        serverB.route { _ in .status(204) }
        let environment = Environment(serverA.baseURL)
        let api = makeClient(environment)
        defer { api.close() }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    environment.select(index.isMultiple(of: 2) ? serverA.baseURL : serverB.baseURL)
                    _ = try await api.get("/item/\(index)").response()
                }
            }
            try await group.waitForAll()
        }

        let all = serverA.requests + serverB.requests
        #expect(all.count == 20)
        #expect(Set(all.map(\.path)).count == 20)
        #expect(all.allSatisfy { $0.header("Authorization") == "Bearer token-1" })
    }
}
