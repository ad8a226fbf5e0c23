import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The handlers of one attempt's outcome, run as one job on the client's handler queue, and the decision they lead
/// to: finish, or retry (now, or after a wait).
extension SimpleRequest {
    /// What the execution loop does after the handlers of one attempt.
    enum Decision: Sendable {
        /// The execution ends with this outcome; error handlers have already seen a failure, and once settled the
        /// completion handlers have run.
        case finish(Outcome)
        /// Another attempt follows, after the retry's wait if it has one.
        case retry(Retry)
    }

    /// What the handlers of one attempt came to, before the decision: ``settle(_:execution:record:)`` turns it into
    /// one, where a retry a handler asked for is read.
    enum HandlersResult: Sendable {
        /// A status handler returned `false`: the chain stopped at it.
        case stopped(SimpleResponse)
        /// The success handlers, or the error handlers, saw this outcome.
        case handled(Outcome)
        /// The retry policy asked for another attempt; no error handler ran.
        case policyRetry(Retry)
    }

    /// What the handlers need to know about the execution so far.
    struct HandlingContext: Sendable {
        var record: ExecutionRecord
        /// The value step of this execution, instead of the request's own (``decode(_:decoder:on:)``).
        var valueStep: Transform?
    }

    /// What the handlers of one attempt read from the request, copied out of the lock: its handlers, and the parts
    /// the retry policy looks at.
    private struct HandlingSnapshot {
        var handlers: Handlers
        var parts: Parts
        var retryPolicy: RetryPolicy?
        /// The execution was cancelled before its handlers ran.
        var cancelled: Bool
    }

    /// Runs the handlers for `outcome` on the handler queue, settles the decision they lead to (see
    /// ``settle(_:execution:record:)``) and, when it is to finish, runs the completion handlers in the same job. A 2xx
    /// of a request with no handlers at all is settled in the execution's task instead.
    func runHandlers(
        for outcome: Outcome, on client: SimpleNetworking, execution id: Int, context: HandlingContext
    ) async -> Decision {
        let transformed = transformedValue(of: outcome, on: client, context: context)
        // A 2xx of a request without handlers runs none of the app's code, so it is decided here, in the execution's
        // task: the job on the handler queue would cost two thread switches per request and change nothing.
        if case .success(let response) = outcome, response.isSuccess, state.withLock({ !$0.handlers.hasHandlers }) {
            return decide(outcome, transformed: transformed, on: client, execution: id, context: context)
        }
        return await client.configuration.handlerQueue.run {
            self.decide(outcome, transformed: transformed, on: client, execution: id, context: context)
        }
    }

    /// The handlers' work for `outcome`: run them, settle the decision, and run the completion handlers when it is to
    /// finish.
    private func decide(
        _ outcome: Outcome, transformed: TransformResult?, on client: SimpleNetworking, execution id: Int,
        context: HandlingContext
    ) -> Decision {
        let snapshot = state.withLock { state in
            state.live?.isHandling = true
            state.live?.requestedRetry = nil
            return HandlingSnapshot(
                handlers: state.handlers, parts: state.parts, retryPolicy: state.retryPolicy,
                cancelled: state.live?.isCancelled ?? false)
        }
        let decision = settle(
            handle(outcome, transformed: transformed, with: snapshot, on: client, context: context),
            execution: id, record: context.record)
        if case .finish = decision {
            for completion in state.withLock({ $0.handlers.completionHandlers }) { completion() }
        }
        return decision
    }

    /// The decision after the handlers, made once, here: a retry one of them asked for wins over what they came to
    /// (a cancelled one is then reported by the loop); otherwise a status handler's stop ends the execution with
    /// ``SimpleNetworkingError/stoppedByHandler(_:)``, a policy retry is taken, and a handled outcome finishes. A
    /// decision to finish ends the execution under the same lock, so a retry asked for from another thread is either
    /// taken here or starts the next execution, never lost.
    func settle(_ result: HandlersResult, execution id: Int, record: ExecutionRecord) -> Decision {
        let decision: Decision
        switch result {
        case .stopped(let response): decision = .finish(.failure(.stoppedByHandler(response)))
        case .handled(let outcome): decision = .finish(outcome)
        case .policyRetry(let retry): decision = .retry(retry)
        }
        return state.withLock { state in
            // Not `if let live`: that would copy the whole live execution on every request.
            guard state.live?.id == id else { return decision }
            state.live?.isHandling = false
            if let requested = state.live?.requestedRetry {
                state.live?.requestedRetry = nil
                return .retry(requested)
            }
            if case .finish = decision { state.end(id, record: record) }
            return decision
        }
    }

    /// Status handlers first, in order, until one returns `false`; then the deadline; then, for a 2xx, the success
    /// handlers; otherwise the retry policy, and when it does not retry, the error handlers. What they came to is not
    /// yet the decision: a handler may have asked for a retry (``settle(_:execution:record:)``).
    ///
    /// With a transform step, a 2xx whose transform threw goes to the error handlers instead; otherwise the success
    /// handlers of the response run, then those of the value.
    private func handle(
        _ result: Outcome, transformed: TransformResult?, with snapshot: HandlingSnapshot, on client: SimpleNetworking,
        context: HandlingContext
    ) -> HandlersResult {
        let history = context.record.history
        var outcome: Outcome
        switch result {
        case _ where snapshot.cancelled: outcome = .failure(SimpleNetworkingError.cancelled.withAttempts(history))
        case .success(let response):
            // The transformed value goes to the caller with the response (``TransformedRequest/value()``).
            let value = try? transformed?.get()
            outcome = .success(response.with(attempts: history, decoder: client.configuration.decoder, value: value))
        case .failure(let error): outcome = .failure(error.withAttempts(history))
        }
        if case .success(let response) = outcome {
            for handler in snapshot.handlers.statusHandlers[response.statusCode] ?? [] where !handler(self, response) {
                return .stopped(response)
            }
        }
        if let remaining = remaining(on: client, record: context.record), remaining <= 0 {
            outcome = .failure(.deadlineExceeded(seconds: deadline(on: client) ?? 0, attempts: history))
        } else if case .success(let response) = outcome, response.isSuccess {
            if case .failure(let error) = transformed {
                for handler in snapshot.handlers.errorHandlers { handler(error, response) }
                return .handled(.failure(error))
            }
            for handler in snapshot.handlers.successHandlers { handler(response) }
            if case .success(let value) = transformed {
                for handler in snapshot.handlers.valueHandlers { handler(value.value) }
            }
            return .handled(outcome)
        } else if let retry = policyRetry(after: outcome, with: snapshot, on: client, context: context) {
            return .policyRetry(retry)
        }
        let error: SimpleNetworkingError
        switch outcome {
        case .success(let response):
            // A typed error body (decodingErrors) replaces the plain status error; one that did not decode is nil.
            if case .failure(let typed) = transformed { error = typed } else { error = .unacceptableStatus(response) }
        case .failure(let failure): error = failure
        }
        for handler in snapshot.handlers.errorHandlers { handler(error, error.response) }
        return .handled(.failure(error))
    }

    /// Runs the transform steps, here in the execution's task rather than on the handler queue, so that decoding never
    /// runs on the main thread (<doc:RequestsAndResponses>): the value step on a 2xx response, the error-body step
    /// on any other status. `nil` without a step for the response, or when its error body did not decode.
    private func transformedValue(of outcome: Outcome, on client: SimpleNetworking, context: HandlingContext)
        -> TransformResult?
    {
        guard case .success(let received) = outcome else { return nil }
        let own = state.withLock { $0.handlers.transform }
        // This execution's own value step (decode(_:)) keeps the request's error-body step.
        let oneOff = context.valueStep.map { Transform(value: $0.value, errorBody: own?.errorBody) }
        guard let transform = oneOff ?? own else { return nil }
        let response = received.with(attempts: context.record.history, decoder: client.configuration.decoder)
        guard response.isSuccess else {
            guard let body = transform.errorBody?(response, client) else { return nil }
            return .failure(.errorBody(body, response: response))
        }
        guard let step = transform.value else { return nil }
        do {
            return .success(try step(response, client))
        } catch let error as SimpleNetworkingError {
            return .failure(error.withAttempts(context.record.history))
        } catch {
            return .failure(.transformFailed(underlying: error, response: response))
        }
    }

    /// Whether some of a response stream's body has been accepted for its reader: a retry would send it again.
    var hasStreamedBody: Bool {
        guard case .stream(let stream) = state.withLock({ $0.parts.receiving }) else { return false }
        return stream.hasStarted
    }

    /// Asks the retry policy, the deadline and the retry budget, in that order; the budget token is taken last, so
    /// nothing after it can refuse the retry.
    private func policyRetry(
        after outcome: Outcome, with snapshot: HandlingSnapshot, on client: SimpleNetworking, context: HandlingContext
    ) -> Retry? {
        let configuration = client.configuration
        let policy = snapshot.retryPolicy ?? configuration.retryPolicy
        let now = configuration.clock.now()
        let record = context.record
        guard !snapshot.cancelled, state.withLock({ $0.live?.requestedRetry == nil }), !hasStreamedBody,
            let delay = policy.retryDelay(
                afterAttempt: record.attempts, method: snapshot.parts.method, headers: snapshot.parts.headers,
                outcome: outcome, now: now, random: configuration.random.next())
        else { return nil }
        if let remaining = remaining(on: client, record: record), delay >= remaining { return nil }
        guard client.retryBudget.takeToken(now: now) else { return nil }
        return Retry(countsAgainstLimit: false, delay: delay, tookBudgetToken: true)
    }
}
