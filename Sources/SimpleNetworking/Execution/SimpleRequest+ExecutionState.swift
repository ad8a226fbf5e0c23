import Foundation

/// The values the execution loop shares with the rest of the request: what it has done so far, the task it runs in,
/// and the hand-over from ``SimpleNetworking/execute(request:)``'s `super` call.
extension SimpleRequest {
    /// What an execution has done so far. The loop owns it and publishes a copy; it outlives the execution, so a
    /// ``retry()`` after the end continues the count instead of starting a fresh limit.
    struct ExecutionRecord: Sendable {
        var attempts = 0
        var handlerRetries = 0
        var history: [RequestAttempt] = []
        /// The retry limit was reported; further ``retry()`` calls do nothing until the next execution.
        var exhausted = false
        /// The credential epoch the latest attempt was sent with (see ``SimpleNetworking/reauthenticate(_:on:)``).
        var credentialEpoch = 0
        var startedAt: Date?
        /// The latest response, for ``SimpleNetworkingError/retryLimitExceeded(attempts:response:)``.
        var lastResponse: SimpleResponse?
        /// Started inside ``SimpleNetworking/authenticate()``: never re-authenticated itself. Decided per execution,
        /// so a request reused later outside `authenticate()` is re-authenticated as usual.
        var isAuthentication = false
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
        var goAhead = GoAhead.idle

        /// Whether the execution was cancelled, read from any thread.
        var isCancelled: Bool { task?.isCancelled ?? signal?.isCancelled ?? false }

        /// Cancels the execution.
        func cancel() {
            task?.cancel()
            signal?.cancel()
        }
    }

    /// The hand-over between the loop, which calls ``SimpleNetworking/execute(request:)``, and that method's
    /// `super` call, which may come at once, later, or never.
    enum GoAhead: Sendable {
        case idle
        /// `execute(request:)` was called; its `super` has not come back yet.
        case expected
        /// `super` came back while `execute(request:)` was still running.
        case given(SimpleNetworking)
        /// The loop is suspended until `super` comes back, or cancellation or the deadline ends the wait.
        case awaited(CheckedContinuation<SimpleNetworking?, Never>)
    }

    /// A retry asked for by a handler or by the retry policy.
    struct Retry: Sendable {
        /// The client to run on, when not the current one (``retry(on:)``).
        var client: SimpleNetworking?
        /// Handler retries count against the retry limit; policy retries are bounded by the policy.
        var countsAgainstLimit: Bool
        /// The backoff or `Retry-After` wait.
        var delay: TimeInterval = 0
        /// Work to await before the retry (``retry(after:)``), such as re-authentication.
        var operation: (@Sendable () async throws(SimpleNetworkingError) -> Void)?
        /// A token was taken from the retry budget; it goes back if the retry is not sent.
        var tookBudgetToken = false
    }

    /// Asks `client.execute(request:)` to send the next attempt.
    /// - Returns: The client whose `super` gave the go-ahead during the call, or `nil` when it has not (yet).
    func requestGoAhead(from client: SimpleNetworking) -> SimpleNetworking? {
        state.withLock { $0.live?.goAhead = .expected }
        client.execute(request: self)
        return state.withLock { state in
            guard case .given(let sender) = state.live?.goAhead else { return nil }
            state.live?.goAhead = .idle
            return sender
        }
    }

    /// Waits for a go-ahead that `execute(request:)` did not give during the call, as an override that gates
    /// requests (offline, say) calls `super` later.
    /// - Returns: The client whose `super` gave it, or `nil` when the wait was cancelled.
    func awaitGoAhead() async -> SimpleNetworking? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> SimpleNetworking?? in
                    if case .given(let sender) = state.live?.goAhead {
                        state.live?.goAhead = .idle
                        return .some(sender)
                    }
                    // Cancelled before waiting: the go-ahead stays expected, so that a late `super` is ignored.
                    if Task.isCancelled { return .some(nil) }
                    state.live?.goAhead = .awaited(continuation)
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<SimpleNetworking?, Never>? in
                guard case .awaited(let continuation) = state.live?.goAhead else { return nil }
                state.live?.goAhead = .expected
                return continuation
            }
            waiting?.resume(returning: nil)
        }
    }

    /// The go-ahead from ``SimpleNetworking/execute(request:)``'s `super`: hands the attempt to the waiting loop, or
    /// starts an execution when `execute(request:)` was called directly. A call the loop did not ask for is ignored.
    func sendAttempt(on client: SimpleNetworking) {
        enum Action {
            case none, start, resume(CheckedContinuation<SimpleNetworking?, Never>)
        }
        let action = state.withLock { state -> Action in
            guard let goAhead = state.live?.goAhead else {
                // A late `super` for an execution that ended (cancelled, say) while waiting for it sends nothing.
                if state.unansweredGoAhead {
                    state.unansweredGoAhead = false
                    return .none
                }
                return .start
            }
            switch goAhead {
            case .expected:
                state.live?.goAhead = .given(client)
                return .none
            case .awaited(let continuation):
                state.live?.goAhead = .idle
                return .resume(continuation)
            case .idle, .given:
                return .none
            }
        }
        switch action {
        case .none: break
        case .start: _ = start(on: client, sender: client)
        case .resume(let continuation): continuation.resume(returning: client)
        }
    }
}

extension SimpleRequest {
    /// Ends execution `id`, if it is still the live one: publishes its record and stops accepting handler retries,
    /// so a ``retry()`` from now on starts the next execution.
    func end(_ id: Int, record: ExecutionRecord) {
        state.withLock { $0.end(id, record: record) }
    }
}

extension SimpleRequest.State {
    /// See ``SimpleRequest/end(_:record:)``.
    mutating func end(_ id: Int, record: SimpleRequest.ExecutionRecord) {
        guard live?.id == id else { return }
        switch live?.goAhead {
        case .expected, .awaited: unansweredGoAhead = true
        case .idle, .given, nil: break
        }
        self.record = record
        self.live = nil
        parts.progress?.finishUpdates()
    }
}
