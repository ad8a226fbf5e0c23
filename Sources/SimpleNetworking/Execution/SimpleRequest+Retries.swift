import Foundation

extension SimpleRequest {
    /// Runs the request again, with the same handlers, on the client it last ran on (or is bound to).
    ///
    /// Called from a handler, the retry runs once the handlers of this response are done, and completion handlers
    /// wait for it. Called later, it starts a new execution on the same attempt count. Each retry counts against the
    /// retry limit; past it the error handlers get ``SimpleNetworkingError/retryLimitExceeded(attempts:response:)``
    /// and further retries do nothing until the next ``execute(on:)``.
    public func retry() {
        requestRetry(on: nil, after: nil)
    }

    /// Runs the request again on `client`, as a new attempt through `client.execute(request:)`.
    /// - Parameter client: The client to run on.
    public func retry(on client: SimpleNetworking) {
        requestRetry(on: client, after: nil)
    }

    /// Keeps the execution open while `operation` runs, then retries; if `operation` throws, the error handlers get
    /// its error and the execution ends.
    ///
    /// Use it from a status handler for work that must finish before the retry, such as refreshing a token:
    /// completion handlers and an awaiting ``response(on:)`` wait for the retry instead of ending with
    /// ``SimpleNetworkingError/stoppedByHandler(_:)``. ``cancel()`` stops the wait, and so does the deadline.
    /// - Parameter operation: The work to await before retrying.
    public func retry(after operation: @escaping @Sendable () async throws(SimpleNetworkingError) -> Void) {
        requestRetry(on: nil, after: operation)
    }

    /// Sets the automatic retry policy for this request.
    ///
    /// Default: the client's ``SimpleNetworking/Configuration/retryPolicy``.
    /// - Parameter policy: The policy, for example ``RetryPolicy/never``.
    /// - Returns: This request.
    @discardableResult
    public func retryPolicy(_ policy: RetryPolicy) -> Self {
        update { $0.retryPolicy = policy }
    }

    /// Sets the longest this request may take across all attempts, waits and redirects.
    ///
    /// Once it has passed, the execution ends with ``SimpleNetworkingError/deadlineExceeded(seconds:attempts:)``,
    /// wherever it passes: in flight, while handlers run, or during a wait. Default: the client's
    /// ``SimpleNetworking/Configuration/deadline`` (none).
    /// - Parameter seconds: The deadline in seconds from ``execute(on:)``.
    /// - Returns: This request.
    @discardableResult
    public func deadline(_ seconds: TimeInterval) -> Self {
        update { $0.deadline = max(0, seconds) }
    }

    /// Records a retry asked for while handlers run, or starts one after the execution has ended.
    private func requestRetry(
        on requestedClient: SimpleNetworking?,
        after operation: (@Sendable () async throws(SimpleNetworkingError) -> Void)?
    ) {
        var retry = Retry(client: requestedClient, countsAgainstLimit: true, operation: operation)
        let late = execution.withLock { slot -> (client: SimpleNetworking, continuing: Bool)? in
            guard let client = requestedClient ?? slot.client, !slot.record.exhausted else { return nil }
            if let live = slot.live {
                // Only the handlers of the current response may ask; a retry asked for twice runs once.
                if live.isHandling, live.requestedRetry == nil { slot.live?.requestedRetry = retry }
                return nil
            }
            return (client, slot.record.startedAt != nil)
        }
        guard let late else { return }
        // After the end: a new execution that continues the count, so a deferred retry cannot loop forever. A
        // request that never ran simply starts.
        retry.countsAgainstLimit = late.continuing
        _ = start(on: late.client, beginning: .lateRetry(retry), continuing: late.continuing)
    }
}

extension SimpleRequest {
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
}
