import Foundation

/// The values the execution loop shares with the rest of the request: what it has done so far, the task it runs in,
/// and the gate ``SimpleNetworking/execute(request:)``'s `super` call opens.
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
    /// that nothing the execution reads changes under it.
    struct Snapshot: Sendable {
        var parts: Parts
        var handlers: Handlers
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

        /// Whether the execution was cancelled, read from any thread.
        var isCancelled: Bool { task?.isCancelled ?? signal?.isCancelled ?? false }

        /// Cancels the execution.
        func cancel() {
            task?.cancel()
            signal?.cancel()
        }

        /// The retry a handler asked for, which is then no longer asked for.
        mutating func takeRequestedRetry() -> Retry? {
            defer { requestedRetry = nil }
            return requestedRetry
        }
    }

    /// A retry asked for by an interceptor, a handler or the retry policy.
    package struct Retry: Sendable {
        /// The client to run on, when not the current one (``retry(on:)``).
        package var client: SimpleNetworking?
        /// Handler retries count against the retry limit; policy retries are bounded by the policy.
        package var countsAgainstLimit: Bool
        /// The backoff or `Retry-After` wait.
        package var delay: TimeInterval
        /// Work to await before the retry (``retry(after:)``), such as re-authentication.
        package var operation: (@Sendable () async throws(SimpleNetworkingError) -> Void)?
        /// A token was taken from the retry budget; it goes back if the retry is not sent.
        package var tookBudgetToken: Bool

        /// A retry on `client` (the current one when `nil`), after `delay` and then `operation`.
        package init(
            client: SimpleNetworking? = nil, countsAgainstLimit: Bool, delay: TimeInterval = 0,
            operation: (@Sendable () async throws(SimpleNetworkingError) -> Void)? = nil, tookBudgetToken: Bool = false
        ) {
            self.client = client
            self.countsAgainstLimit = countsAgainstLimit
            self.delay = delay
            self.operation = operation
            self.tookBudgetToken = tookBudgetToken
        }
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

    /// Passes the next attempt through `client.execute(request:)`, the outermost stage, with a fresh gate for its
    /// `super` call, which may come at once, later from any thread, or never.
    /// - Returns: The client whose `super` opened the gate during the call, or `nil` when it has not (yet).
    func passExecute(on client: SimpleNetworking) -> SimpleNetworking? {
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
    func awaitGate() async -> SimpleNetworking? {
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

    /// Ends execution `id`, if it is still the live one (``ExecutionSlot/end(_:record:)``).
    func end(_ id: Int, record: ExecutionRecord, progress: ProgressReporter?) {
        if execution.withLock({ $0.end(id, record: record) }) { progress?.finishUpdates() }
    }
}

extension SimpleRequest.State {
    /// The copy one attempt is built and judged from, with the client's settings where the request has none.
    func snapshot(on client: SimpleNetworking) -> SimpleRequest.Snapshot {
        let rules = RetryDecision.Rules(
            policy: retryPolicy ?? client.configuration.retryPolicy, method: parts.method, headers: parts.headers,
            limit: maximumRetries ?? client.configuration.maximumRetries)
        return SimpleRequest.Snapshot(parts: parts, handlers: handlers, rules: rules)
    }
}
