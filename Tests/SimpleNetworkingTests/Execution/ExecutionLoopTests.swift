import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A subclass whose `execute(request:)` holds every attempt until `open()` is called, as an offline gate would.
private final class GatedAPI: SimpleNetworking, @unchecked Sendable {
    // @unchecked Sendable: the held requests live behind `held`'s lock.
    private let held = Locked<[SimpleRequest]>([])

    override func execute(request: SimpleRequest) {
        held.withLock { $0.append(request) }
    }

    var heldCount: Int { held.current.count }

    /// Sends every held attempt, from another thread, as `super` would be called when the gate opens.
    func open() {
        let requests = held.withLock { held in
            defer { held = [] }
            return held
        }
        for request in requests { super.execute(request: request) }
    }
}

/// A subclass whose `execute(request:)` calls `super` twice, as a careless override might.
private final class TwiceAPI: SimpleNetworking, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func execute(request: SimpleRequest) {
        super.execute(request: request)
        super.execute(request: request)
    }
}

/// A transport that answers after `delay` seconds and counts the sends in flight, so a test can see that a cancel
/// stopped the one on the wire.
private final class InFlightTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `counts`, behind its lock.
    private let counts = Locked<(active: Int, started: Int, cancelled: Int)>((0, 0, 0))
    let delay: TimeInterval
    let status: Int

    init(delay: TimeInterval, status: Int) {
        self.delay = delay
        self.status = status
    }

    var active: Int { counts.current.active }
    var started: Int { counts.current.started }
    var cancelled: Int { counts.current.cancelled }

    var capabilities: TransportCapabilities { [] }

    func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        counts.withLock {
            $0.active += 1
            $0.started += 1
        }
        defer { counts.withLock { $0.active -= 1 } }
        do {
            try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
        } catch {
            counts.withLock { $0.cancelled += 1 }
            throw .cancelled
        }
        return try await transfer.deliver(whole: SimpleResponse(statusCode: status, url: request.url))
    }
}

/// A clock that moves only when told: `advance(by:)` from a handler, or a sleep, which returns at once.
private final class SteppedClock: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_700_000_000))

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var clock: SimpleClock {
        SimpleClock(
            now: { [current] in current.current },
            sleep: { [self] seconds in
                advance(by: seconds)
                try Task.checkCancellation()
            })
    }
}

/// A clock whose sleeps never end by themselves: only cancellation ends them, so a wait lasts until a test stops it.
private let frozenClock = SimpleClock(
    now: { Date(timeIntervalSince1970: 1_700_000_000) },
    sleep: { _ in
        while true { try await Task.sleep(nanoseconds: 1_000_000_000) }
    })

@Suite("The execution loop")
struct ExecutionLoopTests {
    // MARK: execute(request:) that does not call super

    @Test("An override that never calls super: cancel() ends response() with cancelled, promptly")
    func noSuperCancel() async {
        let api = GatedAPI(baseURL: exampleBaseURL, transport: MockTransport())
        let request = api.get("/held")
        let log = EventLog()
        request.on(error: { log.append("error \($0)") }).on(completion: { log.append("completion") })
        async let result = failure(of: request)
        #expect(await eventually { api.heldCount == 1 })
        let stopwatch = WireStopwatch()
        request.cancel()
        let error = await result
        let elapsed = stopwatch.stop().net
        guard case .cancelled = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        #expect(elapsed < 5 * timeScale)  // about 5 ms alone; the defect was a hang for good
        #expect(log.all == ["error The request was cancelled.", "completion"])
    }

    @Test("execute(request:) called directly runs the request, again once it finished; a second super sends nothing")
    func directCallsAndSecondSuper() async {
        let (api, transport) = makeMockClient()
        transport.route { _ in .status(200) }
        let completions = Counter()
        let request = api.get("/direct").on(completion: { completions.increment() })
        api.execute(request: request)
        #expect(await eventually { completions.value == 1 })
        api.execute(request: request)
        #expect(await eventually { completions.value == 2 })
        #expect(transport.requestCount == 2)

        let twiceTransport = MockTransport()
        twiceTransport.route { _ in .status(200) }
        let twice = TwiceAPI(baseURL: exampleBaseURL, transport: twiceTransport)
        for _ in 0..<3 { _ = try? await twice.get("/twice").response() }
        #expect(twiceTransport.requestCount == 3, "one attempt per execution, whatever the override calls")
    }

    @Test("A late super for an execution that was cancelled sends nothing")
    func lateSuperIgnored() async {
        let transport = MockTransport()
        let api = GatedAPI(baseURL: exampleBaseURL, transport: transport)
        let request = api.get("/held")
        async let first = failure(of: request)
        #expect(await eventually { api.heldCount == 1 })
        request.cancel()
        _ = await first
        api.open()
        // Not running: a new execution starts (and is held again) instead of answering requestInProgress.
        async let second = failure(of: request)
        #expect(await eventually { api.heldCount == 1 })
        request.cancel()
        let error = await second
        #expect(error.map { if case .cancelled = $0 { true } else { false } } == true)
        #expect(transport.requestCount == 0)
    }

    @Test("A deferred retry(), called from another thread around the end of the handlers, is never lost")
    func deferredRetryFromAnotherThread() async {
        let (api, transport) = makeMockClient()
        let authorized = Locked<Set<String>>([])
        transport.route { request in
            let path = request.url.path
            return authorized.current.contains(path) ? .status(200) : .status(401)
        }
        for round in 0..<100 {
            let path = "/deferred-\(round)"
            let successes = Counter()
            let request = api.get(path)
            request
                .on(
                    httpStatus: 401,
                    { request, _ in
                        // "Authenticate" on another thread, then retry, racing the end of this execution.
                        DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(round % 4 * 50)) {
                            authorized.withLock { _ = $0.insert("/v1" + path) }
                            request.retry()
                        }
                        return false
                    }
                )
                .on(success: { _ in successes.increment() })
                .execute(on: api)
            #expect(await eventually { successes.value == 1 }, "round \(round): the retry was lost")
        }
    }

    @Test("An override that never calls super: cancelling the awaiting task ends it with cancelled")
    func noSuperTaskCancel() async {
        let api = GatedAPI(baseURL: exampleBaseURL, transport: MockTransport())
        let task = Task { await failure(of: api.get("/held")) }
        #expect(await eventually { api.heldCount == 1 })
        let stopwatch = WireStopwatch()
        task.cancel()
        let error = await task.value
        #expect(stopwatch.stop().net < 5 * timeScale)  // the defect was a hang for good
        #expect(error.map { if case .cancelled = $0 { true } else { false } } == true)
    }

    @Test("An override that calls super later sends the attempt then; the deadline ends one that never does")
    func gateOpensLaterOrDeadline() async {
        let transport = MockTransport()
        transport.route { _ in .status(200) }
        let api = GatedAPI(baseURL: exampleBaseURL, transport: transport)
        async let response = outcome { try await api.get("/later").response() }
        #expect(await eventually { api.heldCount == 1 })
        #expect(transport.requestCount == 0)
        api.open()
        #expect((try? await response.get().statusCode) == 200)
        #expect(transport.requestCount == 1)

        let clock = VirtualClock()
        let timed = GatedAPI(
            baseURL: exampleBaseURL, transport: transport,
            configuration: {
                var configuration = SimpleNetworking.Configuration()
                configuration.clock = clock.clock
                configuration.deadline = 5
                return configuration
            }())
        let error = await failure(of: timed.get("/never"))
        guard case .deadlineExceeded(let seconds, _) = error else {
            Issue.record("expected deadlineExceeded, got \(String(describing: error))")
            return
        }
        #expect(seconds == 5)
        #expect(transport.requestCount == 1)
    }

    // MARK: cancel() stops what is in flight

    @Test("Retries and cancels in a stress loop: every cancel stops the attempt on the wire, and nothing follows")
    func cancelStress() async {
        let transport = InFlightTransport(delay: 0.02, status: 503)
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport)
        for round in 0..<60 {
            let request = api.get("/stress").retryLimit(1000)
            request.on(httpStatus: 503) { request, _ in
                request.retry()
                return false
            }
            let completions = Counter()
            request.on(completion: { completions.increment() })
            async let error = failure(of: request)
            // cancel() before the execution starts has no effect (documented), so wait for the first attempt.
            #expect(await eventually { request.attemptCount > 0 })
            // Cancel at a different point of the retry cycle each round: in flight, in handlers, between attempts.
            try? await Task.sleep(nanoseconds: UInt64(round % 6) * 7_000_000)
            request.cancel()
            let result = await error
            guard case .cancelled = result else {
                Issue.record("round \(round): expected cancelled, got \(String(describing: result))")
                return
            }
            let startedAtEnd = transport.started
            #expect(transport.active == 0, "round \(round): a send is still in flight after the execution ended")
            #expect(completions.value == 1)
            try? await Task.sleep(nanoseconds: 30_000_000)
            #expect(transport.started == startedAtEnd, "round \(round): an attempt was sent after cancel")
        }
        #expect(transport.cancelled > 0)
    }

    // MARK: The deadline wherever it passes

    @Test("A deadline that passes while a 503's handlers run ends with deadlineExceeded")
    func deadlineDuringHandlers() async {
        let clock = SteppedClock()
        let (api, transport) = makeMockClient {
            $0.clock = clock.clock
            $0.deadline = 10
            $0.retryPolicy = .default
        }
        transport.route { _ in .status(503) }
        let log = EventLog()
        let error = await failure(
            of: api.get("/slow-handlers")
                .on(
                    httpStatus: 503,
                    { _, _ in
                        // The handler takes (virtually) 11 s: the deadline passes while it runs.
                        clock.advance(by: 11)
                        return true
                    }
                )
                .on(error: { log.append("\($0)") }))
        guard case .deadlineExceeded(let seconds, let attempts) = error else {
            Issue.record("expected deadlineExceeded, got \(String(describing: error))")
            return
        }
        #expect(seconds == 10)
        #expect(attempts.map(\.statusCode) == [503])
        #expect(transport.requestCount == 1)
        #expect(log.all.count == 1 && log.all.first?.contains("deadline") == true)
    }

    @Test("A deadline that passes during a re-authentication wait ends with deadlineExceeded and stops the wait")
    func deadlineDuringWait() async {
        let clock = VirtualClock()
        let (api, transport) = makeMockClient {
            $0.clock = clock.clock
            $0.deadline = 3
        }
        transport.route { _ in .status(401) }
        let stopped = Counter()
        let error = await failure(
            of: api.get("/wait")
                .on(
                    httpStatus: 401,
                    { request, _ in
                        request.retry(after: { () async throws(SimpleNetworkingError) in
                            do {
                                try await Task.sleep(nanoseconds: 60_000_000_000)
                            } catch {
                                stopped.increment()
                                throw SimpleNetworkingError.cancelled
                            }
                        })
                        return false
                    }))
        guard case .deadlineExceeded = error else {
            Issue.record("expected deadlineExceeded, got \(String(describing: error))")
            return
        }
        #expect(stopped.value == 1)
        #expect(transport.requestCount == 1)
    }

    @Test("A deadline already past before an attempt ends with deadlineExceeded, not with a send")
    func deadlineBeforeAttempt() async {
        let clock = SteppedClock()
        let (api, transport) = makeMockClient {
            $0.clock = clock.clock
            $0.deadline = 1
            $0.retryPolicy = RetryPolicy(maximumAttempts: 5)
        }
        // Retry-After 0 keeps the policy's own check from refusing; the handler moves time past the deadline.
        transport.route { _ in .status(503, headers: ["Retry-After": "0"]) }
        let error = await failure(
            of: api.get("/late")
                .on(
                    httpStatus: 503,
                    { _, _ in
                        clock.advance(by: 0.6)
                        return true
                    }))
        guard case .deadlineExceeded = error else {
            Issue.record("expected deadlineExceeded, got \(String(describing: error))")
            return
        }
        // 0.6 s after the first 503 the policy retries (0 s wait); 1.2 s after, before the third, time is up.
        #expect(transport.requestCount == 2)
    }

    // MARK: Default headers

    @Test("Reading one default header while writing another cannot deadlock; inout across await holds no lock")
    func defaultHeadersNoDeadlock() async {
        let (api, _) = makeMockClient { $0.defaultHeaders = ["A": "a", "B": "b"] }
        api.defaultHeaders["A"]?.append(api.defaultHeaders["B"] ?? "")
        #expect(api.defaultHeaders["A"] == "ab")
        func slowEdit(_ headers: inout HTTPHeaders) async {
            await Task.yield()
            headers["C"] = "c"
        }
        await slowEdit(&api.defaultHeaders)
        #expect(api.defaultHeaders["C"] == "c")
        #expect(api.defaultHeaders["B"] == "b")
    }

    @Test("updateDefaultHeaders is one atomic read-modify-write")
    func atomicUpdate() async {
        let (api, _) = makeMockClient()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    api.updateDefaultHeaders { headers in
                        headers["X-Count"] = String((Int(headers["X-Count"] ?? "") ?? 0) + 1)
                    }
                }
            }
        }
        #expect(api.defaultHeaders["X-Count"] == "200")
    }

    // MARK: Retry budget

    @Test("A policy retry cancelled during its backoff gives its budget token back")
    func budgetTokenReturned() async {
        let transport = MockTransport()
        transport.route { _ in .status(503) }
        let scheduled = Counter()
        var configuration = SimpleNetworking.Configuration()
        configuration.clock = frozenClock
        configuration.random = RandomSource { 0.5 }
        configuration.retryBudget = RetryBudget(capacity: 1, refillPerSecond: 0)
        configuration.eventHandler = { event in
            if case .retryScheduled = event.kind { scheduled.increment() }
        }
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport, configuration: configuration)
        for round in 1...3 {
            // Each request takes the one token for its retry, waits in a backoff that never ends on this clock,
            // and is cancelled there; the token must come back each time, or the next request could not retry.
            let request = api.get("/r\(round)")
            async let error = failure(of: request)
            #expect(await eventually { scheduled.value == round })
            request.cancel()
            guard case .cancelled = await error else {
                Issue.record("round \(round): expected cancelled")
                return
            }
        }
        #expect(transport.requestCount == 3)
    }

    // MARK: MockTransport

    @Test("A MockTransport route may read requests and enqueue replies")
    func mockRouteReentrant() async {
        let (api, transport) = makeMockClient()
        transport.route { _ in
            let seen = transport.requests.count
            transport.enqueue(.status(201))
            return .status(seen == 1 ? 200 : 500)
        }
        let first = try? await api.get("/one").response()
        let second = try? await api.get("/two").response()
        #expect(first?.statusCode == 200)
        #expect(second?.statusCode == 201)
    }

    // MARK: Authentication requests

    @Test("A request reused after running inside authenticate() is re-authenticated later")
    func reusedAuthenticationRequest() async {
        final class API: SimpleNetworking, @unchecked Sendable {
            // @unchecked Sendable: `probe` is set once before use; `logins` is a thread-safe counter.
            let logins = Counter()
            let probe = Locked<SimpleRequest?>(nil)

            override func authenticate() async throws {
                logins.increment()
                if let probe = probe.current { _ = try? await probe.response(on: self) }
                defaultHeaders["Authorization"] = "Bearer \(logins.value)"
            }

            override func execute(request: SimpleRequest) {
                reauthenticate(request, on: 401)
                super.execute(request: request)
            }
        }
        let transport = MockTransport()
        let api = API(baseURL: exampleBaseURL, transport: transport)
        let probe = api.get("/probe")
        api.probe.set(probe)
        // Inside authenticate() the probe's 401 is not re-authenticated (no recursion).
        transport.route { request in
            request.headers["Authorization"] == nil ? .status(401) : .status(200)
        }
        let first = try? await api.get("/first").response()
        #expect(first?.statusCode == 200)
        #expect(api.logins.value == 1)
        // Reused outside authenticate(), the same request object is re-authenticated as any other.
        api.probe.set(nil)
        api.defaultHeaders["Authorization"] = nil
        let reused = try? await probe.response(on: api)
        #expect(reused?.statusCode == 200)
        #expect(api.logins.value == 2)
    }
}
