import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// Appends its name to a request header on the way out, and to `log` on the way out and back.
private struct Tagging: RequestInterceptor {
    let name: String
    let log: EventLog

    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        log.append("\(name) out #\(context.attempt)")
        var request = request
        request.headers.add(name: "X-Order", value: name)
        let response = try await next(request)
        log.append("\(name) back \(response.statusCode)")
        return response
    }
}

/// Adds the current token, and after a 401 refreshes it and asks for another attempt.
private final class TokenRefresher: RequestInterceptor {
    let token = Locked("old")

    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        var request = request
        request.headers["Authorization"] = "Bearer \(token.current)"
        return try await next(request)
    }

    func retry(after outcome: Result<SimpleResponse, SimpleNetworkingError>, context: InterceptorContext) async
        -> InterceptorRetry
    {
        guard case .success(let response) = outcome, response.statusCode == 401 else { return .doNotRetry }
        token.set("new")
        return .retry
    }
}

/// Answers from memory, without the network.
private struct Canned: RequestInterceptor {
    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        SimpleResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"id": 7}"#.utf8))
    }
}

/// Holds the request without calling `next` and without heeding cancellation, until the test releases it.
private final class Holder: RequestInterceptor {
    private let waiting = Locked<UnsafeContinuation<Void, Never>?>(nil)

    var isHolding: Bool { waiting.current != nil }

    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        await withUnsafeContinuation { continuation in waiting.set(continuation) }
        return SimpleResponse(statusCode: 299)
    }

    func release() {
        waiting.withLock { $0.take() }?.resume()
    }
}

/// Sets a header value that is not valid HTTP.
private struct Injecting: RequestInterceptor {
    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        var request = request
        request.headers["X-Injected"] = "a\r\nX-Evil: 1"
        return try await next(request)
    }
}

@Suite("Interceptors")
struct InterceptorTests {
    @Test("The client's interceptors run in order, then the request's; the response comes back in reverse order")
    func order() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let log = EventLog()
        let api = makeLoopbackClient(server) {
            $0.interceptors = [Tagging(name: "A", log: log), Tagging(name: "B", log: log)]
        }
        defer { api.close() }

        let response = try await api.get("/ordered").intercept(with: Tagging(name: "C", log: log)).response()

        #expect(response.statusCode == 200)
        #expect(log.all == ["A out #1", "B out #1", "C out #1", "C back 200", "B back 200", "A back 200"])
        // URLSession joins repeated fields with ", ".
        let sent = server.requests.first?.httpHeaders.values(for: "X-Order")
        #expect(sent?.joined(separator: ", ") == "A, B, C")
    }

    @Test("An interceptor that answers without calling next sends nothing, and its response is decoded")
    func shortCircuit() async throws {
        struct Item: Decodable, Equatable { let id: Int }
        let server = try MockServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let item = try await api.get("/cached").intercept(with: Canned()).decode(Item.self)

        #expect(item == Item(id: 7))
        #expect(server.requestCount == 0)
    }

    @Test("An interceptor that asks for a retry after a 401 gets it; the 401's handlers do not run; history names it")
    func retryAfterRefresh() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.header("Authorization") == "Bearer new" ? .text("ok") : .status(401) }
        let refresher = TokenRefresher()
        let api = makeLoopbackClient(server) { $0.interceptors = [refresher] }
        defer { api.close() }
        let log = EventLog()

        let response = try await api.get("/me")
            .on(httpStatus: 401) { _, _ in
                log.append("401 handler")
                return true
            }
            .response()

        #expect(response.statusCode == 200)
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer old", "Bearer new"])
        #expect(log.all.isEmpty)
        #expect(response.attempts.map(\.retriedBy) == ["TokenRefresher", nil])
    }

    @Test("Retries an interceptor asks for count against the retry limit")
    func retryLimit() async throws {
        struct Always: RequestInterceptor {
            func retry(after outcome: Result<SimpleResponse, SimpleNetworkingError>, context: InterceptorContext)
                async -> InterceptorRetry
            {
                .retry
            }
        }
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(500) }
        let api = makeLoopbackClient(server) {
            $0.interceptors = [Always()]
            $0.maximumRetries = 2
        }
        defer { api.close() }

        let error = await failure(of: api.get("/loop"))

        guard case .retryLimitExceeded(let attempts, _) = error else {
            Issue.record("expected retryLimitExceeded, got \(String(describing: error))")
            return
        }
        #expect(attempts == 3)
        #expect(server.requestCount == 3)
    }

    @Test("Cancelling a request ends it at once while an interceptor holds it without heeding cancellation")
    func cancelledWhileHeld() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let holder = Holder()
        let api = makeLoopbackClient(server)
        defer { api.close() }

        // Awaited: cancelling the awaiting task.
        let awaited = Task { await failure(of: api.get("/held").intercept(with: holder)) }
        #expect(await eventually { holder.isHolding })
        awaited.cancel()
        let error = await awaited.value
        guard case .cancelled? = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        holder.release()

        // The handler form: cancel().
        let log = EventLog()
        let request = api.get("/held").intercept(with: holder)
            .on(error: { error, _ in
                if case .cancelled = error { log.append("cancelled") } else { log.append("\(error)") }
            })
            .on(completion: { log.append("done") })
        request.execute(on: api)
        #expect(await eventually { holder.isHolding })
        request.cancel()
        #expect(await eventually { log.all == ["cancelled", "done"] }, "\(log.all)")
        holder.release()
        #expect(server.requestCount == 0)
    }

    @Test("A request an interceptor makes invalid is refused before anything is sent")
    func invalidChange() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.get("/x").intercept(with: Injecting()))

        guard case .invalidRequest = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(server.requestCount == 0)
    }

    @Test("A subclass's execute(request:) runs before the interceptors, on every attempt, and super sends")
    func subclassOutermost() async throws {
        final class Gated: SimpleNetworking, @unchecked Sendable {
            // @unchecked Sendable: `log` is thread-safe; the rest is SimpleNetworking's.
            let log = EventLog()
            override func execute(request: SimpleRequest) {
                log.append("execute")
                super.execute(request: request)
            }
        }
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.header("Authorization") == "Bearer new" ? .text("ok") : .status(401) }
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .never
        let refresher = TokenRefresher()
        configuration.interceptors = [refresher]
        let api = Gated(baseURL: server.baseURL, configuration: configuration)
        defer { api.close() }

        let response = try await api.get("/me").response()

        #expect(response.statusCode == 200)
        #expect(api.log.all == ["execute", "execute"])
    }
}
