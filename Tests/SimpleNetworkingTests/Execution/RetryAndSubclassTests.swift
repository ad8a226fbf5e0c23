import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Default headers, retry and subclassing")
struct RetryAndSubclassTests {
    @Test("Default headers are merged at send time, and a header set on the request wins")
    func defaultHeaders() async {
        let (api, transport) = makeMockClient { $0.defaultHeaders = ["X-Client": "tests"] }
        transport.route { _ in .status(200) }
        api.defaultHeaders["Authorization"] = "Bearer one"
        await SimpleNetworking.get("/a").header("x-client", "override").executeAndWait(on: api)
        let sent = transport.requests.first?.headers ?? [:]
        #expect(sent["Authorization"] == "Bearer one")
        #expect(sent.values(for: "X-Client") == ["override"])
        #expect(sent.fields.map(\.name).contains("X-Client") == false)
    }

    @Test("A retry after changing default headers sends the new value")
    func retryPicksUpNewHeaders() async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(401))
        transport.enqueue(.status(200))
        api.defaultHeaders["Authorization"] = "Bearer old"
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(
                httpStatus: 401,
                { request, _ in
                    api.defaultHeaders["Authorization"] = "Bearer new"
                    request.retry()
                    return false
                }
            )
            .on(success: { _ in log.append("success") })
            .executeAndWait(on: api)
        let values = transport.requests.map { $0.headers["Authorization"] }
        #expect(values == ["Bearer old", "Bearer new"])
        #expect(log.all == ["success"])
    }

    @Test("Default headers can be written from many tasks while requests are in flight")
    func concurrentDefaultHeaderWrites() async {
        let (api, transport) = makeMockClient()
        transport.route { _ in .status(200) }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask { api.defaultHeaders["X-\(index)"] = "\(index)" }
                group.addTask { _ = try? await api.get("/a").response() }
            }
        }
        #expect(api.defaultHeaders.count == 100)
        #expect(transport.requestCount == 100)
    }

    @Test("The retry limit stops a status handler that always retries", arguments: [0, 1, 3])
    func retryLimitStopsLoop(limit: Int) async throws {
        let (api, transport) = makeMockClient { $0.maximumRetries = limit }
        transport.route { _ in .status(503) }
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(
                httpStatus: 503,
                { request, _ in
                    request.retry(); return false
                }
            )
            .on(error: { error in
                if case .retryLimitExceeded(let attempts, let response) = error {
                    log.append("limit \(attempts) \(response?.statusCode ?? 0)")
                }
            })
            .executeAndWait(on: api)
        #expect(transport.requestCount == limit + 1)
        #expect(log.all == ["limit \(limit + 1) 503"])
        // Nothing more once the limit is reported: no further attempt, no second report.
        #expect(await settle())
        #expect(transport.requestCount == limit + 1)
        #expect(log.all == ["limit \(limit + 1) 503"])
    }

    @Test("The retry limit also stops retries started after an execution finished")
    func retryLimitStopsDeferredLoop() async throws {
        let (api, transport) = makeMockClient()
        transport.route { _ in .status(503) }
        let log = EventLog()
        let request = SimpleNetworking.get("/a").retryLimit(2)
        request
            .on(httpStatus: 503, { _, _ in false })
            .on(error: { error in
                if case .retryLimitExceeded = error { log.append("limit") }
            })
            .on(completion: {
                log.append("completion")
                request.retry()  // the execution has finished: this starts the next one, until the limit
            })
            .execute(on: api)
        // The limit is reported, then the last execution completes; its retry() must start nothing.
        #expect(await eventually { log.all.contains("limit") && log.all.last == "completion" })
        #expect(await settle())
        #expect(transport.requestCount == 3)
        #expect(log.all == ["completion", "completion", "completion", "limit", "completion"])
    }

    @Test("The subclass pattern: an execute override authenticates on 401 and retries")
    func subclassReauthenticates() async throws {
        let transport = MockTransport()
        transport.route { request in
            switch (request.url.path, request.headers["X-Authorization"]) {
            case ("/v1/auth", _): return .json(#"{"token": "fresh"}"#)
            case (_, "fresh"): return .json(#"{"name": "Ada"}"#)
            default: return .status(401)
            }
        }
        let api = MyAPIManager(baseURL: exampleBaseURL, transport: transport)
        let log = EventLog()
        api.get("/me") { request in
            request.on(success: { response in log.append(response.json?["name"] as? String ?? "?") })
        }
        #expect(await eventually { log.all == ["Ada"] })
        let paths = transport.requests.compactMap { $0.url.path }
        #expect(paths == ["/v1/me", "/v1/auth", "/v1/me"])
        #expect(api.token == "fresh")
    }

    @Test("Cancelling the awaiting task cancels the request in flight")
    func cancelAwaitingTask() async throws {
        let (api, transport) = makeMockClient()
        transport.enqueue(MockTransport.Reply.status(200).delayed(by: 60))
        let task = Task { try await api.get("/slow").response() }
        #expect(await eventually { transport.requestCount == 1 })
        let stopwatch = WireStopwatch()
        task.cancel()
        let result = await task.result
        let elapsed = stopwatch.stop().net
        #expect(elapsed < 3 * timeScale, "took \(elapsed) s against a 60 s reply delay")
        #expect(throws: SimpleNetworkingError.self) { try result.get() }
        if case .failure(let error as SimpleNetworkingError) = result { #expect(error.isCancelled) }
    }

    @Test("Running a request that is already running throws requestInProgress")
    func doubleRun() async throws {
        let (api, transport) = makeMockClient()
        // The reply is held back for a minute, so that the first run is still going however loaded the machine; the
        // test then cancels it.
        transport.enqueue(MockTransport.Reply.status(200).delayed(by: 60))
        let request = api.get("/a")
        let first = Task { try await request.response() }
        #expect(await eventually { transport.requestCount == 1 })
        await #expect {
            try await request.response()
        } throws: { error in
            if case .requestInProgress = error as? SimpleNetworkingError { return true }
            return false
        }
        first.cancel()
        let result = await first.result
        #expect((result.failureValue as? SimpleNetworkingError)?.isCancelled == true)
        #expect(transport.requestCount == 1)
    }
}
