import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// DOC-SAMPLE: Interceptors/logging
/// Prints one line per attempt: the method, the URL without its query, and the status or the error.
struct RequestLogger: RequestInterceptor {
    let write: @Sendable (String) -> Void

    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        let line = "#\(context.attempt) \(request.method) \(request.url.path)"
        do {
            let response = try await next(request)
            write("\(line) -> \(response.statusCode)")
            return response
        } catch {
            write("\(line) -> \(error)")
            throw error
        }
    }
}
// DOC-SAMPLE-END

// DOC-SAMPLE: Interceptors/metrics
/// Counts attempts and their time by status class, for a metrics backend to read.
final class AttemptMetrics: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: `totals` is only read and written under `lock`.
    private let lock = NSLock()
    private var totals: [String: (attempts: Int, seconds: Double)] = [:]

    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        let start = ContinuousClock.now
        let result: Result<SimpleResponse, SimpleNetworkingError>
        do throws(SimpleNetworkingError) {
            result = .success(try await next(request))
        } catch {
            result = .failure(error)
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let key = (try? result.get()).map { "\($0.statusCode / 100)xx" } ?? "failed"
        lock.withLock {
            let old = totals[key] ?? (0, 0)
            totals[key] = (old.attempts + 1, old.seconds + seconds)
        }
        return try result.get()
    }

    /// Attempts so far by status class ("2xx", "5xx", "failed").
    var attempts: [String: Int] { lock.withLock { totals.mapValues(\.attempts) } }
}
// DOC-SAMPLE-END

// DOC-SAMPLE: Interceptors/token-refresh
/// Sends the current token, and after a 401 refreshes it and asks for the request again, once.
final class BearerToken: RequestInterceptor, @unchecked Sendable {
    // @unchecked Sendable: `token` is only read and written under `lock`.
    private let lock = NSLock()
    private var token: String
    private let refresh: @Sendable () async -> String?

    init(initial: String, refresh: @escaping @Sendable () async -> String?) {
        token = initial
        self.refresh = refresh
    }

    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        var request = request
        request.headers["Authorization"] = "Bearer \(lock.withLock { token })"
        return try await next(request)
    }

    func retry(after outcome: Result<SimpleResponse, SimpleNetworkingError>, context: InterceptorContext) async
        -> InterceptorRetry
    {
        guard case .success(let response) = outcome, response.statusCode == 401, context.attempt == 1,
            let fresh = await refresh()
        else { return .doNotRetry }
        lock.withLock { token = fresh }
        return .retry
    }
}
// DOC-SAMPLE-END

func registeringInterceptors(baseURL: URL, logger: RequestLogger, metrics: AttemptMetrics) async throws {
    // DOC-SAMPLE: Interceptors/registering
    var configuration = SimpleNetworking.Configuration()
    configuration.interceptors = [logger, metrics]  // every request, in this order
    let api = SimpleNetworking(baseURL: baseURL, configuration: configuration)

    let report = try await api.get("/reports/7")
        .intercept(with: BearerToken(initial: "t0", refresh: { "t1" }))  // this request only, after the client's
        .response()
    // DOC-SAMPLE-END
    _ = report
    api.close()
}

@Suite("Interceptors article samples")
struct InterceptorsSamplesTests {
    @Test("The logging, metrics and token samples run as the article says")
    func samples() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.header("Authorization") == "Bearer t1" ? .text("ok") : .status(401) }
        let lines = EventLog()
        let metrics = AttemptMetrics()
        try await registeringInterceptors(
            baseURL: server.baseURL, logger: RequestLogger(write: { lines.append($0) }), metrics: metrics)

        #expect(lines.all == ["#1 GET /reports/7 -> 401", "#2 GET /reports/7 -> 200"])
        #expect(metrics.attempts == ["4xx": 1, "2xx": 1])
    }
}
