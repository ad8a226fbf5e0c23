import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of one execution of a request: which attempt it is on and what runs next.
///
/// ```
/// idle ──execute──▶ starting ──send──▶ sending ──answer──▶ handling ──────────────▶ finished
///                       ▲                                     │ retry asked for
///                       └──── retrying ◀── waiting (backoff, ◀┘
///                                          re-authentication)
/// ```
extension SimpleRequest {
    enum Phase {
        case idle, starting, sending, handling, waiting, retrying, finished
    }

    /// The result an execution ends with, as the awaiting side sees it.
    typealias Outcome = Result<SimpleResponse, SimpleNetworkingError>

    /// A retry asked for while handlers run, started once they are done.
    struct PendingRetry: Sendable {
        var client: SimpleNetworking
        /// Handler retries count against the retry limit; policy retries are bounded by the policy.
        var countsAgainstLimit: Bool
        var delay: TimeInterval = 0
        var operation: (@Sendable () async throws(SimpleNetworkingError) -> Void)?
    }

    struct Run {
        var phase: Phase = .idle
        var attempts = 0
        var handlerRetries = 0
        var cancelled = false
        /// The retry limit was reported; no further retry runs until the next `execute`.
        var exhausted = false
        var pendingRetry: PendingRetry?
        /// The retry about to be sent: whether it counts against the limit, and the wait before it.
        var nextRetry: (countsAgainstLimit: Bool, delay: TimeInterval)?
        var lastResponse: SimpleResponse?
        var history: [RequestAttempt] = []
        var startedAt: Date?
        var attemptDelay: TimeInterval = 0
        var credentialEpoch = 0
        /// The request of the latest attempt, for events about the retry that follows it.
        var lastURLRequest: URLRequest?
        var task: Task<Void, Never>?
        var awaiter: CheckedContinuation<Outcome, Never>?

        var isActive: Bool { phase != .idle && phase != .finished }
    }

    /// Runs the request on `client`: the request goes through `client.execute(request:)`, so subclasses see it.
    ///
    /// Executing a request that is already running has no effect; call ``cancel()`` first to start over.
    /// - Parameter client: The client to run on.
    /// - Returns: This request.
    @discardableResult
    public func execute(on client: SimpleNetworking) -> Self {
        guard begin(on: client, awaiter: nil) else { return self }
        client.execute(request: self)
        return self
    }

    /// Cancels the request: the attempt in flight or the wait before the next one stops, error handlers get
    /// ``SimpleNetworkingError/cancelled``, completion handlers run once, and no retry follows.
    ///
    /// Cancelling a request that is not running has no effect.
    public func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.run.isActive else { return nil }
            state.run.cancelled = true
            return state.run.task
        }
        task?.cancel()
    }

    /// Starts a fresh execution; `false` when one is already running.
    func begin(on client: SimpleNetworking, awaiter: CheckedContinuation<Outcome, Never>?) -> Bool {
        let now = client.configuration.clock.now()
        return state.withLock { state in
            guard !state.run.isActive else { return false }
            state.run = Run(phase: .starting, startedAt: now, awaiter: awaiter)
            state.client = client
            if Reauthentication.isAuthenticating { state.isAuthenticationRequest = true }
            return true
        }
    }

    /// The credential epoch the latest attempt was sent with.
    var credentialEpoch: Int { state.withLock { $0.run.credentialEpoch } }

    // MARK: - One attempt

    private enum Step {
        case ignore
        case deliver(SimpleNetworkingError)
        case send(Parts, deadline: TimeInterval?)
    }

    /// Sends the next attempt on `client`. Called by ``SimpleNetworking/execute(request:)``.
    func sendAttempt(on client: SimpleNetworking) {
        // The epoch is read before the headers are built; authenticate() writes headers before the epoch moves.
        let epoch = client.reauthentication.epoch
        let now = client.configuration.clock.now()
        let step = state.withLock { state -> Step in
            switch state.run.phase {
            case .sending, .handling, .waiting:
                return .ignore
            case .idle, .finished:
                state.run = Run(phase: .starting, startedAt: now, awaiter: state.run.awaiter)
            case .starting, .retrying:
                break
            }
            state.client = client
            return nextStep(&state, on: client, epoch: epoch, now: now)
        }
        switch step {
        case .ignore:
            return
        case .deliver(let error):
            deliver(.failure(error), on: client, attempted: false)
        case .send(let parts, let clippedDeadline):
            send(parts, on: client, clippedDeadline: clippedDeadline)
        }
    }

    /// Decides, under the lock, whether the attempt may go: not cancelled, within the retry limit and the deadline.
    private func nextStep(_ state: inout State, on client: SimpleNetworking, epoch: Int, now: Date) -> Step {
        let next = state.run.nextRetry
        state.run.nextRetry = nil
        if state.run.cancelled {
            state.run.phase = .handling
            return .deliver(.cancelled)
        }
        if next?.countsAgainstLimit == true {
            state.run.handlerRetries += 1
            if state.run.handlerRetries > state.maximumRetries ?? client.configuration.maximumRetries {
                state.run.exhausted = true
                state.run.phase = .handling
                return .deliver(.retryLimitExceeded(attempts: state.run.attempts, response: state.run.lastResponse))
            }
        }
        var timeout = state.timeout ?? client.configuration.timeout
        var clippedDeadline: TimeInterval?
        if let deadline = state.deadline ?? client.configuration.deadline {
            let remaining = deadline - now.timeIntervalSince(state.run.startedAt ?? now)
            guard remaining > 0 else {
                state.run.phase = .handling
                return .deliver(.deadlineExceeded(seconds: deadline, attempts: state.run.history))
            }
            if remaining < timeout {
                timeout = remaining
                clippedDeadline = deadline
            }
        }
        state.run.attempts += 1
        state.run.attemptDelay = next?.delay ?? 0
        state.run.credentialEpoch = epoch
        state.run.phase = .sending
        return .send(state.parts(timeout: timeout), deadline: clippedDeadline)
    }

    private func send(_ parts: Parts, on client: SimpleNetworking, clippedDeadline: TimeInterval?) {
        let urlRequest: URLRequest
        switch Result(catching: { () throws(SimpleNetworkingError) in try client.makeURLRequest(for: parts) }) {
        case .success(let request): urlRequest = request
        case .failure(let error): return deliver(.failure(error), on: client, attempted: false)
        }
        let task = Task {
            var result: Outcome
            do throws(SimpleNetworkingError) {
                result = .success(try await client.perform(urlRequest, for: parts))
            } catch {
                result = .failure(error)
            }
            if let clippedDeadline, case .failure(let error) = result, error.isTimeout {
                result = .failure(.deadlineExceeded(seconds: clippedDeadline, attempts: []))
            }
            self.deliver(result, on: client, attempted: true)
        }
        let cancelNow = state.withLock { state -> Bool in
            guard state.run.phase == .sending else { return false }
            state.run.task = task
            state.run.lastURLRequest = urlRequest
            return state.run.cancelled
        }
        if cancelNow { task.cancel() }
    }

    private func deliver(_ result: Outcome, on client: SimpleNetworking, attempted: Bool) {
        client.configuration.handlerQueue.schedule {
            self.runHandlers(for: result, on: client, attempted: attempted)
        }
    }

    // MARK: - Handlers

    /// What the handlers of one attempt need, copied out of the lock.
    private struct Snapshot {
        var status: HTTPStatusHandlers
        var error: [ErrorHandler]
        var success: [SuccessHandler]
        var method: HTTPMethod
        var headers: HTTPHeaders
        var retryPolicy: RetryPolicy?
        var deadline: TimeInterval?
        var startedAt: Date?
        var attempts: Int
        var history: [RequestAttempt]
        var cancelled: Bool
        var requestID: UUID
        var lastURLRequest: URLRequest?
    }

    /// Runs the handlers for one attempt's result, then starts the retry they or the policy asked for, or finishes.
    private func runHandlers(for result: Outcome, on client: SimpleNetworking, attempted: Bool) {
        let snapshot = state.withLock { state in
            state.run.phase = .handling
            state.run.task = nil
            if attempted {
                state.run.history.append(
                    RequestAttempt(
                        number: state.run.attempts, statusCode: try? result.get().statusCode,
                        error: result.failure, delay: state.run.attemptDelay))
            }
            return Snapshot(
                status: state.statusHandlers, error: state.errorHandlers, success: state.successHandlers,
                method: state.method, headers: state.headers, retryPolicy: state.retryPolicy,
                deadline: state.deadline, startedAt: state.run.startedAt, attempts: state.run.attempts,
                history: state.run.history, cancelled: state.run.cancelled, requestID: state.safety.requestID,
                lastURLRequest: state.run.lastURLRequest)
        }
        let outcome = snapshot.cancelled ? .failure(.cancelled) : withHistory(result, snapshot.history)
        if case .success(let response) = outcome { state.withLock { $0.run.lastResponse = response } }
        let final = runChain(snapshot, for: outcome, on: client)
        finishOrRetry(final: final, errorHandlers: snapshot.error)
    }

    private func withHistory(_ result: Outcome, _ history: [RequestAttempt]) -> Outcome {
        switch result {
        case .success(var response):
            response.attempts = history
            return .success(response)
        case .failure(let error):
            return .failure(error.withAttempts(history))
        }
    }

    /// Status handlers first, in order, until one returns `false`; then the retry policy; then success or error
    /// handlers.
    /// - Returns: What an awaiting caller receives, or `nil` when the policy scheduled a retry.
    private func runChain(_ snapshot: Snapshot, for outcome: Outcome, on client: SimpleNetworking) -> Outcome? {
        if case .success(let response) = outcome {
            for handler in snapshot.status[response.statusCode] ?? [] {
                let shouldContinue = handler(self, response)
                if !shouldContinue { return .failure(.stoppedByHandler(response)) }
            }
            if response.isSuccess {
                for handler in snapshot.success { handler(response) }
                return outcome
            }
        }
        if !snapshot.cancelled, scheduleAutomaticRetry(after: outcome, snapshot, on: client) { return nil }
        let error: SimpleNetworkingError
        switch outcome {
        case .success(let response): error = .unacceptableStatus(response)
        case .failure(let failure): error = failure
        }
        for handler in snapshot.error { handler(error, error.response) }
        return .failure(error)
    }

    /// Asks the retry policy, the deadline and the retry budget; schedules the retry when all agree.
    private func scheduleAutomaticRetry(after outcome: Outcome, _ snapshot: Snapshot, on client: SimpleNetworking)
        -> Bool
    {
        let configuration = client.configuration
        let policy = snapshot.retryPolicy ?? configuration.retryPolicy
        let now = configuration.clock.now()
        guard
            let delay = policy.retryDelay(
                afterAttempt: snapshot.attempts, method: snapshot.method, headers: snapshot.headers,
                outcome: outcome, now: now, random: configuration.random.next())
        else { return false }
        if let deadline = snapshot.deadline ?? configuration.deadline,
            now.addingTimeInterval(delay).timeIntervalSince(snapshot.startedAt ?? now) >= deadline
        {
            return false
        }
        guard state.withLock({ $0.run.pendingRetry == nil && !$0.run.cancelled }),
            client.retryBudget.takeToken(now: now)
        else { return false }
        let scheduled = state.withLock { state in
            guard state.run.pendingRetry == nil else { return false }
            state.run.pendingRetry = PendingRetry(client: client, countsAgainstLimit: false, delay: delay)
            return true
        }
        if scheduled, let request = snapshot.lastURLRequest {
            client.emit(
                .retryScheduled(attempt: snapshot.attempts + 1, delay: delay), for: request,
                requestID: snapshot.requestID)
        }
        return scheduled
    }

    private enum Next {
        case retry(SimpleNetworking)
        case wait(PendingRetry)
        case finish([CompletionHandler], CheckedContinuation<Outcome, Never>?, Outcome)
    }

    /// After the handlers: start the retry they or the policy asked for, or end the execution.
    private func finishOrRetry(final: Outcome?, errorHandlers: [ErrorHandler]) {
        let next = state.withLock { state -> Next in
            let pending = state.run.pendingRetry
            state.run.pendingRetry = nil
            if let pending, !state.run.cancelled, !state.run.exhausted {
                if pending.operation == nil && pending.delay <= 0 {
                    state.run.phase = .retrying
                    state.run.nextRetry = (pending.countsAgainstLimit, 0)
                    return .retry(pending.client)
                }
                state.run.phase = .waiting
                return .wait(pending)
            }
            state.run.phase = .finished
            let awaiter = state.run.awaiter
            state.run.awaiter = nil
            return .finish(state.completionHandlers, awaiter, final ?? .failure(.cancelled))
        }
        switch next {
        case .retry(let client):
            client.execute(request: self)
        case .wait(let pending):
            startWaiting(for: pending)
        case .finish(let completions, let awaiter, let outcome):
            // A policy retry dropped by a concurrent cancel has not told the error handlers yet.
            if final == nil { for handler in errorHandlers { handler(.cancelled, nil) } }
            for completion in completions { completion() }
            awaiter?.resume(returning: outcome)
        }
    }

    /// Waits (backoff, re-authentication) in a task that ``cancel()`` can stop, then retries or reports the failure.
    func startWaiting(for pending: PendingRetry) {
        let clock = pending.client.configuration.clock
        let task = Task {
            var failure: SimpleNetworkingError?
            if pending.delay > 0 {
                do { try await clock.sleep(pending.delay) } catch { failure = .cancelled }
            }
            if failure == nil, let operation = pending.operation {
                do throws(SimpleNetworkingError) { try await operation() } catch { failure = error }
            }
            self.resumeAfterWaiting(pending, failure: failure)
        }
        let cancelNow = state.withLock { state -> Bool in
            guard state.run.phase == .waiting else { return false }
            state.run.task = task
            return state.run.cancelled
        }
        if cancelNow { task.cancel() }
    }

    private func resumeAfterWaiting(_ pending: PendingRetry, failure: SimpleNetworkingError?) {
        let failure = state.withLock { state -> SimpleNetworkingError? in
            state.run.task = nil
            if state.run.cancelled { return .cancelled }
            if let failure { return failure }
            state.run.phase = .retrying
            state.run.nextRetry = (pending.countsAgainstLimit, pending.delay)
            return nil
        }
        if let failure {
            deliver(.failure(failure), on: pending.client, attempted: false)
        } else {
            pending.client.execute(request: self)
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
