import Foundation

extension SimpleRequest {
    /// Runs the request again, with the same handlers, on the client it last ran on (or is bound to).
    ///
    /// Called from a handler, the retry runs once the handlers of this response are done, and completion handlers
    /// wait for it. Called later, it starts a new execution on the same attempt count. Each retry counts against the
    /// retry limit; past it the error handlers get ``SimpleNetworkingError/retryLimitExceeded(attempts:response:)``
    /// and further retries do nothing until the next ``execute(on:)``.
    public func retry() {
        scheduleRetry(on: nil, after: nil)
    }

    /// Runs the request again on `client`, as a new attempt through `client.execute(request:)`.
    /// - Parameter client: The client to run on.
    public func retry(on client: SimpleNetworking) {
        scheduleRetry(on: client, after: nil)
    }

    /// Keeps the execution open while `operation` runs, then retries; if `operation` throws, the error handlers get
    /// its error and the execution ends.
    ///
    /// Use it from a status handler for work that must finish before the retry, such as refreshing a token:
    /// completion handlers and an awaiting ``response()`` wait for the retry instead of ending with
    /// ``SimpleNetworkingError/stoppedByHandler(_:)``. ``cancel()`` stops the wait.
    /// - Parameter operation: The work to await before retrying.
    public func retry(after operation: @escaping @Sendable () async throws(SimpleNetworkingError) -> Void) {
        scheduleRetry(on: nil, after: operation)
    }

    /// Sets the automatic retry policy for this request.
    ///
    /// Default: the client's ``SimpleNetworking/Configuration/retryPolicy``.
    /// - Parameter policy: The policy, for example ``RetryPolicy/never``.
    /// - Returns: This request.
    @discardableResult
    public func retryPolicy(_ policy: RetryPolicy) -> Self {
        state.withLock { $0.retryPolicy = policy }
        return self
    }

    /// Sets the longest this request may take across all attempts, waits and redirects.
    ///
    /// Default: the client's ``SimpleNetworking/Configuration/deadline`` (none).
    /// - Parameter seconds: The deadline in seconds from ``execute(on:)``.
    /// - Returns: This request.
    @discardableResult
    public func deadline(_ seconds: TimeInterval) -> Self {
        state.withLock { $0.deadline = max(0, seconds) }
        return self
    }

    private enum RetryStart {
        case none
        case now(SimpleNetworking)
        case wait(PendingRetry)
    }

    private func scheduleRetry(
        on requestedClient: SimpleNetworking?,
        after operation: (@Sendable () async throws(SimpleNetworkingError) -> Void)?
    ) {
        let start = state.withLock { state -> RetryStart in
            guard let client = requestedClient ?? state.client, !state.run.cancelled, !state.run.exhausted else {
                return .none
            }
            let pending = PendingRetry(client: client, countsAgainstLimit: true, operation: operation)
            switch state.run.phase {
            case .handling:
                if state.run.pendingRetry == nil { state.run.pendingRetry = pending }
                return .none
            case .finished where operation != nil:
                state.run.phase = .waiting
                return .wait(pending)
            case .finished:
                state.run.phase = .retrying
                state.run.nextRetry = (true, 0)
                return .now(client)
            case .idle:
                state.run = Run(
                    phase: operation == nil ? .starting : .waiting, startedAt: client.configuration.clock.now())
                return operation == nil ? .now(client) : .wait(pending)
            case .starting, .sending, .waiting, .retrying:
                return .none
            }
        }
        switch start {
        case .none: return
        case .now(let client): client.execute(request: self)
        case .wait(let pending): startWaiting(for: pending)
        }
    }

    /// Marks `status` as re-authenticated for this request; `false` when it already is, or when the request was made
    /// by ``SimpleNetworking/authenticate()``.
    func installReauthentication(on status: Int) -> Bool {
        state.withLock { state in
            guard !state.isAuthenticationRequest, !Reauthentication.isAuthenticating,
                state.reauthenticationStatuses.insert(status).inserted
            else { return false }
            return true
        }
    }
}
