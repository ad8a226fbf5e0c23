import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A server whose API answers 401 unless the request carries `Bearer fresh`, and whose `/auth` answers with `auth`.
private func makeAuthServer(auth: MockResponse, api: (@Sendable (RecordedRequest) -> MockResponse)? = nil) throws
    -> MockServer
{
    let server = try MockServer()
    server.route { request in
        if request.path == "/auth" { return auth }
        if let api { return api(request) }
        return request.header("Authorization") == "Bearer fresh" ? .json(#"{"ok": true}"#) : .status(401)
    }
    return server
}

private func makeAPI(_ server: MockServer, configure: (inout SimpleNetworking.Configuration) -> Void = { _ in })
    -> MyAPI
{
    var configuration = SimpleNetworking.Configuration()
    configuration.defaultHeaders = ["Authorization": "Bearer stale"]
    configure(&configuration)
    return MyAPI(baseURL: server.baseURL, configuration: configuration)
}

private func count(_ server: MockServer, path: String? = nil, excluding excluded: String? = nil) -> Int {
    server.requests.filter { request in
        (path == nil || request.path == path) && (excluded == nil || request.path != excluded)
    }.count
}

@Suite("Re-authentication under concurrency")
struct ReauthenticationTests {
    static let slowToken = MockResponse(
        status: 200, headers: [("Content-Type", "application/json")], body: Data(#"{"token": "fresh"}"#.utf8),
        faults: [.delayHeaders(0.1)])

    @Test("100 simultaneous 401s cause exactly one authentication; all 100 succeed with 200 API requests")
    func oneRefreshForAHundred() async throws {
        let server = try makeAuthServer(auth: Self.slowToken)
        defer { server.shutdown() }
        let api = makeAPI(server)
        defer { api.close() }
        let successes = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        if (try? await api.get("/items/\(index)").response()) != nil { successes.increment() }
                    } else {
                        // Half of them through the handler API.
                        await api.get("/items/\(index)")
                            .on(success: { _ in successes.increment() })
                            .executeAndWait(on: api)
                    }
                }
            }
        }
        #expect(successes.value == 100)
        #expect(count(server, path: "/auth") == 1)
        #expect(count(server, excluding: "/auth") == 200)
    }

    @Test("When authentication fails, all 100 waiting requests fail with its error and none hangs")
    func failedRefreshFailsEveryone() async throws {
        let failing = MockResponse(status: 500, faults: [.delayHeaders(0.1)])
        let server = try makeAuthServer(auth: failing)
        defer { server.shutdown() }
        let api = makeAPI(server) { $0.retryPolicy = .never }
        defer { api.close() }
        let authenticationFailures = Counter()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let result = await outcome { try await api.get("/items/\(index)").response() }
                    if case .authenticationFailed = result.failureValue { authenticationFailures.increment() }
                }
            }
        }
        #expect(authenticationFailures.value == 100)
        #expect(count(server, path: "/auth") == 1)
        #expect(count(server, excluding: "/auth") == 100)
    }

    @Test("A server that always answers 401 is bounded by the refresh limit, then fails clearly")
    func refreshLimit() async throws {
        let token = MockResponse.json(#"{"token": "fresh"}"#)
        let server = try makeAuthServer(auth: token, api: { _ in .status(401) })
        defer { server.shutdown() }
        let api = makeAPI(server) {
            $0.refreshLimit = RefreshLimit(maximumRefreshes: 2, interval: 60)
            $0.maximumRetries = 10
        }
        defer { api.close() }
        let result = await outcome { try await api.get("/me").response() }
        guard case .authenticationFailed(let reason, _) = result.failureValue else {
            Issue.record("expected authenticationFailed, got \(result)")
            return
        }
        #expect(reason.contains("refresh limit"))
        #expect(count(server, path: "/auth") == 2)
        #expect(count(server, excluding: "/auth") == 3)
    }

    @Test("A request that failed with an older credential is retried with the current one, without a refresh")
    func staleCredential() async throws {
        let server = try makeAuthServer(
            auth: .json(#"{"token": "fresh"}"#),
            api: { request in
                let fresh = request.header("Authorization") == "Bearer fresh"
                if fresh { return .text("ok") }
                // The slow request's 401 arrives after the fast request's refresh has finished.
                return MockResponse(status: 401, faults: request.path == "/slow" ? [.delayHeaders(0.5)] : [])
            })
        defer { server.shutdown() }
        let api = makeAPI(server)
        defer { api.close() }
        let slow = Task { try await api.get("/slow").response() }
        #expect(await eventually { count(server, path: "/slow") == 1 })
        _ = try await api.get("/fast").response()
        let response = try await slow.value
        #expect(response.statusCode == 200)
        #expect(count(server, path: "/auth") == 1)
        #expect(
            server.requests.filter { $0.path == "/slow" }.map { $0.header("Authorization") } == [
                "Bearer stale", "Bearer fresh",
            ])
    }

    @Test("The authentication endpoint answering 401 does not recurse")
    func authEndpointUnauthorized() async throws {
        let server = try makeAuthServer(auth: .status(401))
        defer { server.shutdown() }
        let api = makeAPI(server)
        defer { api.close() }
        let result = await outcome { try await api.get("/me").response() }
        guard case .authenticationFailed(_, let underlying) = result.failureValue else {
            Issue.record("expected authenticationFailed, got \(result)")
            return
        }
        #expect((underlying as? SimpleNetworkingError)?.statusCode == 401)
        #expect(count(server, path: "/auth") == 1)
        #expect(server.requestCount == 2)
    }

    @Test("Cancelling one waiting request removes it; the others still succeed")
    func cancelOneWaiter() async throws {
        // The authentication takes twice as long as the cancellation may, so a cancel that waited for it fails; both
        // leave room for a busy machine.
        let slowAuth = MockResponse(
            status: 200, headers: [("Content-Type", "application/json")], body: Data(#"{"token": "fresh"}"#.utf8),
            faults: [.delayHeaders(5 * timeScale)])
        let server = try makeAuthServer(auth: slowAuth)
        defer { server.shutdown() }
        let api = makeAPI(server)
        defer { api.close() }
        let requests = (0..<3).map { index in api.get("/items/\(index)") }
        let tasks = requests.map { request in Task { try await request.response() } }
        // Each request has its 401 in its history once its handlers run, and they make it wait for the refresh.
        #expect(
            await eventually {
                count(server, path: "/auth") == 1 && requests.allSatisfy { $0.attempts.map(\.statusCode) == [401] }
            })
        let stopwatch = WireStopwatch()
        tasks[0].cancel()
        let cancelled = await tasks[0].result
        let elapsed = stopwatch.stop().net
        #expect(elapsed < 2.5 * timeScale, "took \(elapsed) s against a \(5 * timeScale) s authentication")
        #expect((cancelled.failureValue as? SimpleNetworkingError)?.isCancelled == true)
        #expect(try await tasks[1].value.statusCode == 200)
        #expect(try await tasks[2].value.statusCode == 200)
        #expect(count(server, path: "/auth") == 1)
    }
}
