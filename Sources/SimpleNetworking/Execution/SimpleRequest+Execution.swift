import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One execution of a request, read top to bottom: the loop in
/// ``SimpleRequest/loop(_:on:beginning:signal:valueStep:events:)``.
///
/// ```
///            ┌──────────────────────────────────────────────────────────────┐
///            ▼                                                              │
///   wait (backoff, Retry-After, re-authentication), if a retry asked for one │
///            │  cancelled, deadline passed ──────────────▶ error handlers ─┐ │
///            ▼                                                             │ │
///   client.execute(request:) ── super opens the gate                       │ │
///            ▼                                                             │ │
///   snapshot ▶ interceptors ▶ hops (cookies, transport, redirects)         │ │
///            ▼                                                             │ │
///   handler job: status handlers ▶ RetryDecision ▶ success or error        │ │
///            │ finish                  handlers ▶ RetryDecision ── retry ──┼─┘
///            ▼                                                             ▼
///   completion handlers, once ────────────────────────────▶ response() returns
/// ```
///
/// The file goes in that order: how an execution starts, the loop, the gate `execute(request:)`'s `super` opens, one
/// attempt, the end, and last the execution's state (what it has done, the execution in progress, the gate). The
/// "How a request runs" article in the documentation describes each step.
///
/// The execution's own async steps are `nonisolated(nonsending)`: they run where their caller runs (the public
/// entry points, which leave the caller's actor once), with no check of the executor at every step
/// (<doc:Performance>, "HTTP cache").
extension SimpleRequest {
    /// The result an execution ends with, as the awaiting side sees it.
    package typealias Outcome = Result<SimpleResponse, SimpleNetworkingError>

    /// How an execution begins.
    enum Beginning: Sendable {
        /// Its first attempt goes through `execute(request:)`.
        case attempt
        /// `execute(request:)` was called directly and its `super` gave the first attempt's go-ahead.
        case goAhead(SimpleNetworking)
        /// A ``retry()`` after the end of the last execution, counted against the retry limit.
        case lateRetry(Retry)
    }

    /// Runs the request on `client`: the request goes through `client.execute(request:)`, so subclasses see it.
    ///
    /// Executing a request that is already running has no effect; call ``cancel()`` first to start over. A request
    /// with ``on(event:)`` handlers runs as an event stream instead, until the stream ends.
    /// - Parameter client: The client to run on.
    /// - Returns: This request.
    @discardableResult
    public func execute(on client: SimpleNetworking) -> Self {
        if state.withLock({ !$0.eventHandlers.isEmpty }) {
            startEventHandlers(on: client)
        } else {
            _ = start(on: client)
        }
        return self
    }

    /// Runs the request on the client it is bound to: the client whose verb made it (`api.get("/x")`), or the one it
    /// last ran on. The same as ``execute(on:)`` with that client.
    ///
    /// ```swift
    /// api.get("/users/1").on(success: { print($0.statusCode) }).execute()
    /// ```
    ///
    /// A request bound to no client (made with `SimpleRequest(method:path:)`) cannot run: its error handlers get
    /// ``SimpleNetworkingError/invalidRequest(reason:)`` and its completion handlers run, here, and nothing is sent.
    /// - Returns: This request.
    @discardableResult
    public func execute() -> Self {
        if let client { return execute(on: client) }
        let handlers = state.withLock { $0.handlers }
        let error = SimpleNetworkingError.invalidRequest(
            reason: "the request is not bound to a client: use execute(on:) with the client to run it on")
        for handler in handlers.errorHandlers { handler(error, nil) }
        for completion in handlers.completionHandlers { completion() }
        return self
    }

    /// Cancels the request: the attempt in flight or the wait before the next one stops, error handlers get
    /// ``SimpleNetworkingError/cancelled``, completion handlers run once, and no retry follows.
    ///
    /// Cancelling a request that is not running has no effect. An event stream run by ``execute(on:)`` closes its
    /// connection and stops reconnecting.
    public func cancel() {
        let (live, events) = execution.withLock { ($0.live, $0.eventStreamTask) }
        events?.cancel()
        live?.cancel()
    }

    /// Cancels the execution in flight only, not the event stream that runs it.
    func cancelExecution() {
        execution.withLock { $0.live }?.cancel()
    }

    /// Runs an execution on `client` in the caller's task, unless one is running: ``response(on:)``'s way, with no
    /// task to create and no thread switch to it and back (<doc:Performance>). Cancelling the caller's task cancels
    /// the execution; ``cancel()`` cancels its signal, which stops what it awaits.
    /// - Parameter valueStep: The value step of this execution instead of the request's own, for
    ///   ``decode(_:decoder:on:)``: its value arrives with the response (``SimpleResponse/transformedValue``).
    /// - Returns: The execution's outcome, or `nil` when one is already running.
    nonisolated(nonsending) func runInCaller(
        on client: SimpleNetworking, valueStep: Transform? = nil
    ) async -> Outcome? {
        let signal = CancellationSignal()
        guard let id = begin(on: client, continuing: false, live: { LiveExecution(id: $0, signal: signal) }) else {
            return nil
        }
        return await withTaskCancellationHandler {
            await run(id, on: client, beginning: .attempt, signal: signal, valueStep: valueStep)
        } onCancel: {
            signal.cancel()
        }
    }

    /// Starts an execution on `client` in a task of its own, unless one is running.
    /// - Parameters:
    ///   - beginning: How it begins: through `execute(request:)`, after its `super`, or with a late retry.
    ///   - continuing: Carry the attempt count and history of the finished execution (a late ``retry()``).
    /// - Returns: The execution's task, or `nil` when one is already running.
    func start(
        on client: SimpleNetworking, beginning: Beginning = .attempt, continuing: Bool = false
    ) -> Task<Outcome, Never>? {
        var task: Task<Outcome, Never>?
        _ = begin(on: client, continuing: continuing) { id in
            let started = Task { await self.run(id, on: client, beginning: beginning, signal: nil, valueStep: nil) }
            task = started
            return LiveExecution(id: id, task: started)
        }
        return task
    }

    /// Records the start of an execution on `client`, unless one is running.
    /// - Parameters:
    ///   - continuing: Carry the attempt count and history of the finished execution.
    ///   - live: Makes the live execution from its id, under the lock.
    /// - Returns: The execution's id, or `nil` when one is already running.
    private func begin(
        on client: SimpleNetworking, continuing: Bool, live: (Int) -> LiveExecution
    ) -> Int? {
        let now = client.configuration.clock.now()
        let isAuthenticating = Reauthentication.isAuthenticating
        let deadline = state.withLock { $0.deadline } ?? client.configuration.deadline
        return execution.withLock { slot in
            guard slot.live == nil else { return nil }
            if !continuing { slot.record = ExecutionRecord(startedAt: now) }
            slot.record.deadline = deadline
            slot.record.isAuthentication = isAuthenticating
            slot.client = client
            slot.executions += 1
            slot.gate = nil
            let id = slot.executions
            slot.live = live(id)
            return id
        }
    }

    /// One execution: the loop, between the events that report its start and its finish when something listens
    /// (<doc:SecurityDefaults>).
    private nonisolated(nonsending) func run(
        _ id: Int, on first: SimpleNetworking, beginning: Beginning, signal: CancellationSignal?, valueStep: Transform?
    ) async -> Outcome {
        guard first.isObserved, let events = ExecutionEvents(for: state.withLock({ $0.parts }), on: first) else {
            return await loop(id, on: first, beginning: beginning, signal: signal, valueStep: valueStep, events: nil)
        }
        events.started(on: first)
        let outcome = await loop(
            id, on: first, beginning: beginning, signal: signal, valueStep: valueStep, events: events)
        events.finished(with: outcome, on: first)
        return outcome
    }

    /// The execution loop: wait, pass `execute(request:)`, send, run the handlers and the decision; until the
    /// decision is to finish. The attempt count, history and handler-retry count are this function's own state; it
    /// publishes them to ``attemptCount`` and ``attempts`` as they change. ``RetryDecision`` decides every retry.
    ///
    /// `signal` is the cancellation of an execution that runs in its caller's task (``runInCaller(on:valueStep:)``);
    /// `nil` for one with a task of its own, which cancelling that task reaches. `events` reports retries and waits.
    private nonisolated(nonsending) func loop(
        _ id: Int, on first: SimpleNetworking, beginning: Beginning, signal: CancellationSignal?,
        valueStep: Transform?, events: ExecutionEvents?
    ) async -> Outcome {
        var record = execution.withLock { $0.record }
        var client = first
        var retry: Retry?
        var given: SimpleNetworking?
        switch beginning {
        case .attempt: break
        case .goAhead(let sender): given = sender
        case .lateRetry(let late):
            let limit = state.withLock { $0.maximumRetries } ?? first.configuration.maximumRetries
            switch RetryDecision.take(late, limit: limit, record: &record) {
            case .success(let taken): retry = taken
            case .failure(let error): return await finish(with: error, on: client, execution: id, record: record)
            }
        }
        while true {
            // 1. The wait the decided retry asks for: backoff, Retry-After, re-authentication.
            var waited: TimeInterval = 0
            if let next = retry {
                retry = nil
                client = next.client ?? client
                waited = next.delay
                events?.report(.retryScheduled(attempt: record.attempts + 1, delay: next.delay), on: client)
                if let failure = await wait(for: next, on: client, record: record, signal: signal, events: events) {
                    // The budget token of a policy retry that will not be sent goes back.
                    if next.tookBudgetToken { client.retryBudget.returnToken() }
                    return await finish(with: failure, on: client, execution: id, record: record)
                }
            }
            let clock = client.configuration.clock
            if let stop = RetryDecision.beforeAttempt(record: record, clock: clock, cancelled: isCancelled(signal)) {
                return await finish(with: stop, on: client, execution: id, record: record)
            }
            // 2. execute(request:), the outermost stage: its super call opens the gate, at once, later, or never.
            var chosen = given
            given = nil
            if chosen == nil {
                chosen = passExecute(on: client)
                if chosen == nil {
                    let remaining = record.remaining(on: clock)
                    let raced = await interruptible(signal) {
                        await race(remaining, clock: clock) { await self.awaitGate() }
                    }
                    if case .done(let opened) = raced { chosen = opened }
                }
            }
            guard let chosen else {
                let failure =
                    RetryDecision.beforeAttempt(record: record, clock: clock, cancelled: isCancelled(signal))
                    ?? .cancelled
                return await finish(with: failure, on: client, execution: id, record: record)
            }
            // 3. The attempt, from one snapshot of the request, through the interceptors, with its redirects.
            let snapshot = state.withLock { $0.snapshot(on: chosen) }
            let sent = await attempt(snapshot, on: chosen, record: &record, signal: signal)
            if sent.request != nil {
                var asked: RetryAsked?
                if let intercepted = sent.intercepted {
                    asked = await interceptorRetry(
                        after: sent.outcome, interceptors: intercepted.interceptors, context: intercepted.context,
                        streamedBody: snapshot.parts.hasStreamedBody, signal: signal)
                }
                let response = try? sent.outcome.get()
                record.history.append(
                    RequestAttempt(
                        number: record.attempts, statusCode: response?.statusCode, error: sent.outcome.failure,
                        delay: waited, retriedBy: asked?.interceptor, httpVersion: response?.httpVersion,
                        source: response?.source))
                record.lastResponse = response
                publish(record)
                if let asked {
                    // The handlers of an outcome an interceptor retries do not run.
                    switch RetryDecision.take(asked.retry, limit: snapshot.rules.limit, record: &record) {
                    case .success(let taken):
                        retry = taken
                        continue
                    case .failure(let error):
                        return await finish(with: error, on: chosen, execution: id, record: record)
                    }
                }
            }
            // 4. The handlers, and the decision around them.
            let context = HandlingContext(snapshot: consume snapshot, record: record, valueStep: valueStep)
            let (decision, judged) = await runHandlers(for: sent.outcome, on: chosen, execution: id, context: context)
            record = judged
            switch decision {
            case .finish(let outcome): return outcome
            case .retry(let next): retry = next
            }
        }
    }

    /// Waits before a retry: the backoff or `Retry-After` delay, then the retry's operation (re-authentication).
    /// `events` reports a wait that ends with the retry going ahead.
    /// - Returns: Why the retry cannot go ahead, or `nil` when it can.
    private func wait(
        for retry: Retry, on client: SimpleNetworking, record: ExecutionRecord, signal: CancellationSignal?,
        events: ExecutionEvents?
    ) async -> SimpleNetworkingError? {
        let clock = client.configuration.clock
        let waitStart = retry.delay > 0 || retry.operation != nil ? events.map { _ in clock.now() } : nil
        var failure: SimpleNetworkingError?
        if retry.delay > 0 {
            let delay = retry.delay
            let slept = await interruptible(signal) {
                do { try await clock.sleep(delay) } catch { return false }
                return true
            }
            if !slept { failure = .cancelled }
        }
        if failure == nil, let operation = retry.operation {
            let remaining = record.remaining(on: clock)
            let outcome = await interruptible(signal) {
                await race(remaining, clock: clock) {
                    do throws(SimpleNetworkingError) {
                        try await operation()
                        return SimpleNetworkingError?.none
                    } catch {
                        return error
                    }
                }
            }
            switch outcome {
            case .done(let error): failure = error
            case .deadline: failure = record.deadlineExceeded
            }
        }
        if failure == nil, isCancelled(signal) { failure = .cancelled }
        if failure == nil, let waitStart {
            let duration = clock.now().timeIntervalSince(waitStart)
            events?.report(.retryWaitFinished(attempt: record.attempts + 1, duration: duration), on: client)
        }
        return failure
    }

    /// Whether the execution was cancelled: its task, or its signal when it runs in its caller's task.
    private func isCancelled(_ signal: CancellationSignal?) -> Bool {
        Task.isCancelled || signal?.isCancelled == true
    }

    /// Runs `operation` so that cancelling the execution stops it: right here when the execution has a task of its
    /// own, which ``cancel()`` cancels; in a task that `signal` cancels when it runs in its caller's task.
    private func interruptible<Value: Sendable>(
        _ signal: CancellationSignal?, _ operation: @escaping @Sendable () async -> Value
    ) async -> Value {
        guard let signal else { return await operation() }
        let task = Task { await operation() }
        return await signal.withCancellationHandler({ await task.value }, onCancel: { task.cancel() })
    }
}

// MARK: - execute(request:), the outermost stage

extension SimpleRequest {
    /// Passes the next attempt through `client.execute(request:)`, the outermost stage, with a fresh gate for its
    /// `super` call, which may come at once, later from any thread, or never.
    /// - Returns: The client whose `super` opened the gate during the call, or `nil` when it has not (yet).
    private func passExecute(on client: SimpleNetworking) -> SimpleNetworking? {
        execution.withLock { $0.gate = Gate() }
        client.execute(request: self)
        return execution.withLock { slot in
            guard case .some(let opened) = slot.gate?.opened else { return nil }
            slot.gate = nil
            return opened
        }
    }

    /// Waits until `super` opens the gate that ``passExecute(on:)`` left closed; cancelling the waiting task closes
    /// it.
    /// - Returns: The client whose `super` opened it, or `nil` when the wait was cancelled.
    private func awaitGate() async -> SimpleNetworking? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = execution.withLock { slot -> SimpleNetworking?? in
                    guard slot.gate != nil else { return .some(nil) }
                    if case .some(let opened) = slot.gate?.opened {
                        // A gate closed by cancellation stays, so that a late `super` for it sends nothing.
                        if opened != nil { slot.gate = nil }
                        return opened
                    }
                    slot.gate?.waiter = Gate.Waiter(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            execution.withLock { $0.gate?.open(nil) }?.continuation.resume(returning: nil)
        }
    }

    /// The go-ahead from ``SimpleNetworking/execute(request:)``'s `super`: opens the gate of the attempt waiting for
    /// it, or starts an execution when `execute(request:)` was called directly. A call for a gate already opened, or
    /// with no gate while an execution runs, is ignored; so is a late one for an execution that has ended, whose gate
    /// stays in the slot until the next execution starts.
    func sendAttempt(on client: SimpleNetworking) {
        enum Action { case none, start, resume(Gate.Waiter) }
        let action = execution.withLock { slot -> Action in
            guard var gate = slot.gate else { return slot.live == nil ? .start : .none }
            guard gate.opened == nil else {
                // Closed when its wait was cancelled: this late `super` sends nothing, and the next one starts anew.
                if case .some(nil) = gate.opened { slot.gate = nil }
                return .none
            }
            let waiter = gate.open(client)
            // Opened during the call: the loop reads it when execute(request:) returns.
            slot.gate = waiter == nil ? gate : nil
            return waiter.map(Action.resume) ?? .none
        }
        switch action {
        case .none: break
        case .start: _ = start(on: client, beginning: .goAhead(client))
        case .resume(let waiter): waiter.continuation.resume(returning: client)
        }
    }
}

// MARK: - The attempt

extension SimpleRequest {
    /// Sends one attempt on `client` from `snapshot`: builds the request, then sends it and follows its redirects.
    /// - Returns: The outcome, the request sent (`nil` when it could not be built), and the interceptors to ask about a
    ///   retry with their context, when it went through any (the cache's stage is never asked).
    private nonisolated(nonsending) func attempt(
        _ snapshot: Snapshot, on client: SimpleNetworking, record: inout ExecutionRecord, signal: CancellationSignal?
    ) async -> SentAttempt {
        let remaining = record.remaining(on: client.configuration.clock)
        // The epoch is read before the headers are built; authenticate() writes headers before the epoch moves.
        let epoch = client.reauthentication.epoch
        var parts = snapshot.parts
        // An event stream's body is bounded by its idle timeout, not by the attempt timeout nor the deadline.
        parts.timeout =
            parts.unboundedBody
            ? SimpleNetworking.Configuration.maximumTimeout
            : parts.timeout ?? client.attemptTimeout
        var clippedDeadline: TimeInterval?
        if !parts.unboundedBody, let remaining, remaining < parts.timeout ?? .infinity {
            parts.timeout = remaining
            clippedDeadline = record.deadline
        }
        var built: HTTPRequest
        // A form with large files is written to a temporary file for this attempt, removed when it ends.
        var formFile: URL?
        defer { if let formFile { try? FileManager.default.removeItem(at: formFile) } }
        do throws(SimpleNetworkingError) {
            if case .multipart(let form) = parts.body, form.streamsFromDisk {
                let (file, contentType) = try await form.encodedToFile()
                formFile = file
                parts.body = .file(file, nil)
                parts.headers["Content-Type"] = contentType.rawValue
            }
            built = try client.makeHTTPRequest(for: parts)
        } catch {
            return SentAttempt(outcome: .failure(error), request: nil, intercepted: nil)
        }
        record.attempts += 1
        record.credentialEpoch = epoch
        publish(record)
        let destination = parts.receiving.map(makeDestination)
        // A download with bytes kept from an earlier attempt asks for the rest.
        if let file = destination as? FileDestination { built = file.ranged(built) }
        let request = built
        let timer = client.isObserved ? AttemptTimer(clock: client.configuration.clock) : nil
        var outcome: Outcome
        var intercepted: Intercepted?
        // The cache takes part in attempts whose whole response comes back in memory: not a download, a response
        // stream or an event stream.
        let cache = destination == nil && !parts.unboundedBody ? client.configuration.cache : nil
        if cache != nil || !client.configuration.interceptors.isEmpty || !parts.interceptors.isEmpty {
            let asked = client.configuration.interceptors + parts.interceptors
            let context = InterceptorContext(
                client: client, requestID: parts.safety.requestID, attempt: record.attempts)
            // Those asked whether to retry: the cache's stage never asks for one.
            intercepted = Intercepted(interceptors: asked, context: context)
            if let cache, asked.isEmpty {
                outcome = await cached(
                    request, for: parts, by: cache, context: context, remaining: remaining, signal: signal, on: client,
                    timer: timer)
            } else {
                let deadlineError = SimpleNetworkingError.deadlineExceeded(
                    seconds: record.deadline ?? 0, attempts: [])
                outcome = await Self.intercepted(
                    request, through: asked + (cache.map { [CacheStage(cache: $0)] } ?? []), context: context,
                    signal: signal, remaining: remaining, deadlineError: deadlineError
                ) { [parts] request throws(SimpleNetworkingError) in
                    try await client.perform(request, for: parts, destination: destination, signal: nil, timer: timer)
                }
            }
        } else if let signal, !client.transport.capabilities.contains(.transferCancellation) {
            // The transport heeds only its task's cancellation: the attempt gets a task that the signal cancels.
            outcome = await interruptible(signal) { [parts] in
                await Self.performed(
                    request, for: parts, destination: destination, on: client, signal: nil, timer: timer)
            }
        } else {
            outcome = await Self.performed(
                request, for: parts, destination: destination, on: client, signal: signal, timer: timer)
        }
        if let file = destination as? FileDestination { outcome = file.settle(outcome) }
        if let clippedDeadline, case .failure(let error) = outcome, error.isTimeout {
            outcome = .failure(.deadlineExceeded(seconds: clippedDeadline, attempts: []))
        }
        if let timer {
            let finished = NetworkEvent.Kind.attemptFinished(
                attempt: record.attempts, statusCode: try? outcome.get().statusCode, timings: timer.finish())
            client.emit(finished, for: request, requestID: parts.safety.requestID)
        }
        return SentAttempt(outcome: outcome, request: request, intercepted: intercepted)
    }

    /// One attempt as the loop reads it: named fields rather than a tuple, whose optional parts Swift copies through
    /// run-time type information (<doc:Performance>).
    private struct SentAttempt {
        var outcome: Outcome
        /// The request sent, or `nil` when it could not be built.
        var request: HTTPRequest?
        /// The interceptors to ask about a retry, when the attempt went through any.
        var intercepted: Intercepted?
    }

    /// The interceptors an attempt went through, with their context: those asked about a retry.
    private struct Intercepted {
        var interceptors: [any RequestInterceptor]
        var context: InterceptorContext
    }

    /// The outcome of an attempt whose only stage is the cache: a hit is answered at once, without the pipeline's
    /// task; otherwise the stage, with the lookup made, sends through `send`, to the transport (the hops of
    /// ``SimpleNetworking/perform(_:for:destination:signal:timer:)``), which heeds cancellation and the timeout as it
    /// does without a cache. Nothing checks what the stage passes on: the request, or it with validators the server
    /// sent (<doc:Performance>, "HTTP cache"). The cache takes part only in attempts without a destination.
    private nonisolated(nonsending) func cached(
        _ request: HTTPRequest, for parts: Parts, by cache: HTTPCache, context: InterceptorContext,
        remaining: TimeInterval?, signal: CancellationSignal?, on client: SimpleNetworking, timer: AttemptTimer?
    ) async -> Outcome {
        var stage = CacheStage(cache: cache)
        var onlyStoring = false
        if remaining.map({ $0 > 0 }) ?? true, !Task.isCancelled, signal?.isCancelled != true,
            let found = stage.answerFromStorage(request, context: context)
        {
            if let response = found.response { return .success(response) }
            onlyStoring = CacheStage.leavesOnlyStoring(found.lookup)
            if !onlyStoring { stage.lookedUp = found.lookup }
        }
        // Made only when the request is sent: a hit answers without it.
        let send: @Sendable (HTTPRequest, CancellationSignal?) async throws(SimpleNetworkingError) -> SimpleResponse = {
            [parts] request, heeded throws(SimpleNetworkingError) in
            try await client.perform(request, for: parts, destination: nil, signal: heeded, timer: timer)
        }
        let heedsSignal = client.transport.capabilities.contains(.transferCancellation)
        if heedsSignal, onlyStoring {
            // A miss over a transport that heeds the signal: sent from this task, without a closure around it.
            do throws(SimpleNetworkingError) {
                return .success(try await Self.missed(request, by: stage, context: context, signal: signal, send: send))
            } catch {
                return .failure(error)
            }
        }
        // A transport that heeds only its task's cancellation gets a task that the signal cancels.
        let staged = stage
        let willStore = onlyStoring
        let run: @Sendable () async -> Outcome = {
            do throws(SimpleNetworkingError) {
                let heeded = heedsSignal ? signal : nil
                guard willStore else {
                    let next = InterceptorNext { request throws(SimpleNetworkingError) in
                        try await send(request, heeded)
                    }
                    return .success(try await staged.intercept(request, context: context, next: next))
                }
                return .success(
                    try await Self.missed(request, by: staged, context: context, signal: heeded, send: send))
            } catch {
                return .failure(error)
            }
        }
        return heedsSignal ? await run() : await interruptible(signal, run)
    }

    /// A miss with nothing stored (``CacheStage/leavesOnlyStoring(_:)``): what the stage would do, done here. The
    /// request is sent as it is, and the response stored when it may be.
    private static func missed(
        _ request: HTTPRequest, by stage: CacheStage, context: InterceptorContext, signal: CancellationSignal?,
        send: @Sendable (HTTPRequest, CancellationSignal?) async throws(SimpleNetworkingError) -> SimpleResponse
    ) async throws(SimpleNetworkingError) -> SimpleResponse {
        let clock = context.client.configuration.clock
        let sentAt = clock.now()
        let response = try await send(request, signal)
        stage.store(response, for: request, sentAt: sentAt, receivedAt: clock.now(), context: context)
        return response
    }

    /// The hops of one attempt (``SimpleNetworking/perform(_:for:destination:signal:timer:)``), as an outcome.
    private static nonisolated(nonsending) func performed(
        _ request: HTTPRequest, for parts: Parts, destination: (any ResponseDestination)?, on client: SimpleNetworking,
        signal: CancellationSignal?, timer: AttemptTimer?
    ) async -> Outcome {
        do throws(SimpleNetworkingError) {
            return .success(
                try await client.perform(request, for: parts, destination: destination, signal: signal, timer: timer))
        } catch {
            return .failure(error)
        }
    }

    /// Where one attempt's 2xx body goes: a fresh temporary file for each attempt of a download, the execution's one
    /// buffer for a stream.
    private func makeDestination(_ receiving: Receiving) -> any ResponseDestination {
        switch receiving {
        case .file(let file): return FileDestination(file)
        case .stream(let stream): return stream
        }
    }
}

// MARK: - The end

extension SimpleRequest {
    /// Ends the execution without a response for the handlers (cancelled, past the deadline, a failed wait, the
    /// retry limit): error handlers, then completion handlers, once, on the handler queue.
    private func finish(
        with failure: SimpleNetworkingError, on client: SimpleNetworking, execution id: Int, record: ExecutionRecord
    ) async -> Outcome {
        let error = failure.withAttempts(record.history)
        let (errorHandlers, completions, progress, queue) = state.withLock {
            ($0.handlers.errorHandlers, $0.handlers.completionHandlers, $0.parts.progress, $0.handlers.queue)
        }
        end(id, record: record, progress: progress)
        await (queue ?? client.configuration.handlerQueue).run {
            for handler in errorHandlers { handler(error, error.response) }
            for completion in completions { completion() }
        }
        return .failure(error)
    }

    /// Ends execution `id`, if it is still the live one (``ExecutionSlot/end(_:record:)``).
    private func end(_ id: Int, record: ExecutionRecord, progress: ProgressReporter?) {
        if execution.withLock({ $0.end(id, record: record) }) { progress?.finishUpdates() }
    }

    /// Makes `record` what ``attemptCount``, ``attempts`` and late retries see.
    private func publish(_ record: ExecutionRecord) {
        execution.withLock { $0.record = record }
    }
}

// MARK: - The execution's state

/// What the execution loop shares with the rest of the request, behind the request's execution lock: what it has done
/// so far, the task it runs in, and the gate ``SimpleNetworking/execute(request:)``'s `super` call opens.
extension SimpleRequest {
    /// The request's executions, behind their own lock: the one in progress, what the last one did, and the client.
    struct ExecutionSlot: Sendable {
        /// The client this request is bound to or last ran on.
        var client: SimpleNetworking?
        /// What the current or last execution has done, as its loop last published it.
        var record = ExecutionRecord()
        /// The execution in progress, if any.
        var live: LiveExecution?
        /// How many executions have started, for their ids.
        var executions = 0
        /// The gate of the attempt waiting for `super` in ``SimpleNetworking/execute(request:)``; kept after its
        /// execution ended, so that a late `super` call for it opens it and sends nothing.
        var gate: Gate?
        /// The task that runs the event handlers of an executed event stream, cancelled by ``SimpleRequest/cancel()``.
        var eventStreamTask: Task<Void, Never>?

        /// Ends execution `id`, if it is still the live one: publishes its record and stops accepting handler
        /// retries, so a ``SimpleRequest/retry()`` from now on starts the next execution.
        mutating func end(_ id: Int, record: ExecutionRecord) -> Bool {
            guard live?.id == id else { return false }
            self.record = record
            self.live = nil
            return true
        }
    }

    /// What one attempt is built and judged from: a copy of the request as built, taken once its go-ahead came, so
    /// that nothing the execution reads changes under it, with the client's retry settings where it has none.
    struct Snapshot: Sendable {
        var parts: Parts
        var handlers: Handlers
        /// What the retry decision judges the attempt by: the request's retry policy and limit, else the client's,
        /// made once per attempt.
        var rules: RetryDecision.Rules
    }

    /// What an execution has done so far. The loop owns it and publishes a copy; it outlives the execution, so a
    /// ``retry()`` after the end continues the count instead of starting a fresh limit.
    package struct ExecutionRecord: Sendable {
        package var attempts = 0
        package var handlerRetries = 0
        package var history: [RequestAttempt] = []
        /// The retry limit was reported; further ``retry()`` calls do nothing until the next execution.
        package var exhausted = false
        /// The credential epoch the latest attempt was sent with (see ``SimpleNetworking/reauthenticate(_:on:)``).
        var credentialEpoch = 0
        package var startedAt: Date?
        /// The overall deadline in seconds from `startedAt`, fixed when the execution starts: the request's, else the
        /// client's.
        package var deadline: TimeInterval?
        /// The latest response, for ``SimpleNetworkingError/retryLimitExceeded(attempts:response:)``.
        package var lastResponse: SimpleResponse?
        /// Started inside ``SimpleNetworking/authenticate()``: never re-authenticated itself. Decided per execution,
        /// so a request reused later outside `authenticate()` is re-authenticated as usual.
        var isAuthentication = false

        /// A record of `attempts` attempts and `handlerRetries` retries asked for, started at `startedAt`.
        package init(
            attempts: Int = 0, handlerRetries: Int = 0, exhausted: Bool = false, startedAt: Date? = nil,
            deadline: TimeInterval? = nil
        ) {
            self.attempts = attempts
            self.handlerRetries = handlerRetries
            self.exhausted = exhausted
            self.startedAt = startedAt
            self.deadline = deadline
        }

        /// Seconds left before the deadline at `now`, or `nil` when there is none.
        package func remaining(at now: Date) -> TimeInterval? {
            guard let deadline else { return nil }
            return deadline - now.timeIntervalSince(startedAt ?? now)
        }

        /// Seconds left before the deadline now by `clock`, which is read only when there is a deadline.
        package func remaining(on clock: SimpleClock) -> TimeInterval? {
            deadline == nil ? nil : remaining(at: clock.now())
        }

        /// The error of an execution past its deadline.
        package var deadlineExceeded: SimpleNetworkingError {
            .deadlineExceeded(seconds: deadline ?? 0, attempts: history)
        }
    }

    /// The execution in progress: how ``cancel()`` cancels it, and what it is waiting for.
    struct LiveExecution: Sendable {
        /// Tells this execution from a later one of the same request.
        let id: Int
        /// The execution's own task, when it has one.
        var task: Task<Outcome, Never>?
        /// The cancellation of an execution that runs in its caller's task (``response(on:)``).
        var signal: CancellationSignal?
        /// Set while the handlers of a response run; ``retry()`` is recorded only then.
        var isHandling = false
        /// The retry a handler asked for while the handlers run.
        var requestedRetry: Retry?

        /// Cancels the execution.
        func cancel() {
            task?.cancel()
            signal?.cancel()
        }

        // What the handler job reads of it (isCancelled, takeRequestedRetry) is beside the job, in
        // SimpleRequest+Handling.swift.
    }

    /// The one-shot gate of one attempt, kept in the execution's slot and changed only under its lock:
    /// `execute(request:)`'s `super` opens it with its client, once; cancelling the wait closes it with `nil`.
    /// Whichever comes first is what the loop gets.
    struct Gate: Sendable {
        /// The loop waiting at a gate, boxed: a continuation's layout is only known at run time, and a box keeps the
        /// gate's fixed, so that making and reading one costs no metadata lookup; only a wait makes a box.
        final class Waiter: Sendable {
            let continuation: CheckedContinuation<SimpleNetworking?, Never>

            init(_ continuation: CheckedContinuation<SimpleNetworking?, Never>) {
                self.continuation = continuation
            }
        }

        /// What the gate was opened (a client) or closed (`nil`) with, once it was.
        var opened: SimpleNetworking??
        /// The loop, when it waits for the gate.
        var waiter: Waiter?

        /// Opens the gate with `client`, or closes it with `nil`, unless either happened already.
        /// - Returns: The waiting loop to resume with `client`.
        mutating func open(_ client: SimpleNetworking?) -> Waiter? {
            guard opened == nil else { return nil }
            opened = .some(client)
            defer { waiter = nil }
            return waiter
        }
    }
}

extension SimpleRequest.State {
    /// The copy one attempt is built and judged from, with the client's settings where the request has none.
    func snapshot(on client: SimpleNetworking) -> SimpleRequest.Snapshot {
        SimpleRequest.Snapshot(
            parts: parts, handlers: handlers,
            rules: RetryDecision.Rules(
                policy: retryPolicy ?? client.configuration.retryPolicy, method: parts.method, headers: parts.headers,
                limit: maximumRetries ?? client.configuration.maximumRetries))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
