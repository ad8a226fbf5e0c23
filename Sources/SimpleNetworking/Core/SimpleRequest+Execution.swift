import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The life of one execution of a request: which attempt it is on and what runs next.
///
/// ```
/// idle ──execute──▶ starting ──send──▶ sending ──answer──▶ handling ──▶ finished
///                       ▲                                     │
///                       └──────────── retrying ◀──retry()─────┘
/// ```
extension SimpleRequest {
    enum Phase {
        case idle, starting, sending, handling, retrying, finished
    }

    /// The result an execution ends with, as the awaiting side sees it.
    typealias Outcome = Result<SimpleResponse, SimpleNetworkingError>

    struct Run {
        var phase: Phase = .idle
        var attempts = 0
        var cancelled = false
        /// The retry limit was reported; no further retry runs until the next `execute`.
        var exhausted = false
        /// Set when `retry` is called while handlers run: the client to run the next attempt on.
        var retryTarget: SimpleNetworking?
        var lastResponse: SimpleResponse?
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

    /// Runs the request again, with the same handlers, on the client it last ran on (or is bound to).
    ///
    /// Called from a handler, the retry runs once the handlers of this response are done, and completion handlers
    /// wait for it. Called later, it starts a new execution on the same attempt count. Each retry counts against the
    /// retry limit; past it the error handlers get ``SimpleNetworkingError/retryLimitExceeded(attempts:response:)``
    /// and further retries do nothing until the next ``execute(on:)``.
    public func retry() {
        scheduleRetry(on: nil)
    }

    /// Runs the request again on `client`, as a new attempt through `client.execute(request:)`.
    /// - Parameter client: The client to run on.
    public func retry(on client: SimpleNetworking) {
        scheduleRetry(on: client)
    }

    /// Cancels the request: the attempt in flight stops, error handlers get
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
        state.withLock { state in
            guard !state.run.isActive else { return false }
            state.run = Run(phase: .starting, awaiter: awaiter)
            state.client = client
            return true
        }
    }

    private func scheduleRetry(on requestedClient: SimpleNetworking?) {
        let target = state.withLock { state -> SimpleNetworking? in
            guard let client = requestedClient ?? state.client, !state.run.cancelled, !state.run.exhausted else {
                return nil
            }
            switch state.run.phase {
            case .handling:
                state.run.retryTarget = client
                return nil
            case .finished:
                state.run.phase = .retrying
                return client
            case .idle:
                state.run = Run(phase: .starting)
                return client
            case .starting, .sending, .retrying:
                return nil
            }
        }
        target?.execute(request: self)
    }

    // MARK: - One attempt

    private enum Step {
        case ignore
        case deliver(SimpleNetworkingError)
        case send(Parts, attempt: Int)
    }

    /// Sends the next attempt on `client`. Called by ``SimpleNetworking/execute(request:)``.
    func sendAttempt(on client: SimpleNetworking) {
        let step = state.withLock { state -> Step in
            switch state.run.phase {
            case .sending, .handling:
                return .ignore
            case .idle, .finished:
                state.run = Run(phase: .starting, awaiter: state.run.awaiter)
            case .starting, .retrying:
                break
            }
            state.client = client
            if state.run.cancelled {
                state.run.phase = .handling
                return .deliver(.cancelled)
            }
            let limit = state.maximumRetries ?? client.configuration.maximumRetries
            if state.run.attempts > limit {
                state.run.exhausted = true
                state.run.phase = .handling
                return .deliver(.retryLimitExceeded(attempts: state.run.attempts, response: state.run.lastResponse))
            }
            state.run.attempts += 1
            state.run.phase = .sending
            let parts = Parts(
                method: state.method, target: state.target, queryItems: state.queryItems,
                headers: state.headers, body: state.body, timeout: state.timeout, safety: state.safety)
            return .send(parts, attempt: state.run.attempts)
        }
        switch step {
        case .ignore:
            return
        case .deliver(let error):
            deliver(.failure(error), on: client)
        case .send(let parts, _):
            let urlRequest: URLRequest
            switch Result(catching: { () throws(SimpleNetworkingError) in try client.makeURLRequest(for: parts) }) {
            case .success(let request): urlRequest = request
            case .failure(let error): return deliver(.failure(error), on: client)
            }
            let options = client.transportOptions(for: parts)
            let task = Task {
                let result: Outcome
                do throws(SimpleNetworkingError) {
                    result = .success(try await client.perform(urlRequest, options: options))
                } catch {
                    result = .failure(error)
                }
                self.deliver(result, on: client)
            }
            let cancelNow = state.withLock { state -> Bool in
                guard state.run.phase == .sending else { return false }
                state.run.task = task
                return state.run.cancelled
            }
            if cancelNow { task.cancel() }
        }
    }

    private func deliver(_ result: Outcome, on client: SimpleNetworking) {
        client.configuration.handlerQueue.schedule { self.runHandlers(for: result, on: client) }
    }

    // MARK: - Handlers

    private struct Handlers {
        var status: HTTPStatusHandlers
        var error: [ErrorHandler]
        var success: [SuccessHandler]
    }

    /// Runs the handlers for one attempt's result, then either starts the retry they asked for or finishes.
    private func runHandlers(for result: Outcome, on client: SimpleNetworking) {
        let (handlers, cancelled) = state.withLock { state in
            state.run.phase = .handling
            state.run.task = nil
            if case .success(let response) = result { state.run.lastResponse = response }
            let handlers = Handlers(
                status: state.statusHandlers, error: state.errorHandlers, success: state.successHandlers)
            return (handlers, state.run.cancelled)
        }
        let outcome = cancelled ? .failure(.cancelled) : result
        let final = runChain(handlers, for: outcome)

        enum Next {
            case retry(SimpleNetworking)
            case finish([CompletionHandler], CheckedContinuation<Outcome, Never>?)
        }
        let next = state.withLock { state -> Next in
            let target = state.run.retryTarget
            state.run.retryTarget = nil
            if let target, !state.run.cancelled, !state.run.exhausted {
                state.run.phase = .retrying
                return .retry(target)
            }
            state.run.phase = .finished
            let awaiter = state.run.awaiter
            state.run.awaiter = nil
            return .finish(state.completionHandlers, awaiter)
        }
        switch next {
        case .retry(let target):
            target.execute(request: self)
        case .finish(let completions, let awaiter):
            for completion in completions { completion() }
            awaiter?.resume(returning: final)
        }
    }

    /// Status handlers first, in order, until one returns `false`; then success or error handlers.
    /// - Returns: What an awaiting caller receives.
    private func runChain(_ handlers: Handlers, for outcome: Outcome) -> Outcome {
        switch outcome {
        case .success(let response):
            for handler in handlers.status[response.statusCode] ?? [] {
                let shouldContinue = handler(self, response)
                if !shouldContinue { return .failure(.stoppedByHandler(response)) }
            }
            if response.isSuccess {
                for handler in handlers.success { handler(response) }
                return .success(response)
            }
            let error = SimpleNetworkingError.unacceptableStatus(response)
            for handler in handlers.error { handler(error, response) }
            return .failure(error)
        case .failure(let error):
            for handler in handlers.error { handler(error, error.response) }
            return .failure(error)
        }
    }
}
