import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The handlers of one attempt's outcome, run as one job on the client's handler queue, around the retry decision
/// (``RetryDecision``): status handlers, the verdict, the success or error handlers, then the verdict as the execution
/// ends (a retry they asked for), and the completion handlers when it does. The file ends with what the job reads of
/// the request's handlers and of the live execution.
extension SimpleRequest {
    /// What the execution loop does after the handlers of one attempt.
    enum Decision: Sendable {
        /// The execution has ended with this outcome: the handlers that should see it have, completion handlers
        /// included.
        case finish(Outcome)
        /// Another attempt follows, after the retry's wait if it has one.
        case retry(Retry)
    }

    /// What the handlers of one attempt need to know: the snapshot the attempt was sent from, and the execution so far.
    struct HandlingContext: Sendable {
        var snapshot: Snapshot
        var record: ExecutionRecord
        /// The value step of this execution, instead of the request's own (``decode(_:decoder:on:)``).
        var valueStep: Transform?
    }

    /// Runs the handlers for `outcome` and the decision they lead to, as one job on the handler queue; right here, in
    /// the execution's task, when the queue runs handlers there (``HandlerQueue/background``), and for a 2xx of a
    /// request with no handlers at all: the job would cost two thread switches per request and run none of the app's
    /// code.
    /// - Returns: The decision, and the record with the retry it counted.
    nonisolated(nonsending) func runHandlers(
        for outcome: Outcome, on client: SimpleNetworking, execution id: Int, context: HandlingContext
    ) async -> (Decision, ExecutionRecord) {
        let transformed = transformedValue(of: outcome, on: client, context: context)
        let queue = context.snapshot.handlers.queue ?? client.configuration.handlerQueue
        var inExecution = queue.runsHandlersInExecution
        if case .success(let response) = outcome, response.isSuccess, !context.snapshot.handlers.hasHandlers {
            inExecution = true
        }
        if inExecution { return decide(outcome, transformed: transformed, on: client, execution: id, context: context) }
        return await queue.run {
            self.decide(outcome, transformed: transformed, on: client, execution: id, context: context)
        }
    }

    /// The handlers' job for `outcome`, in order: status handlers until one returns `false`; the verdict; the success
    /// or error handlers it delivers to; the verdict as the execution ends; completion handlers when it does.
    private func decide(
        _ received: Outcome, transformed: TransformResult?, on client: SimpleNetworking, execution id: Int,
        context: HandlingContext
    ) -> (Decision, ExecutionRecord) {
        // Read in place: the snapshot is not copied.
        let handlers = context.snapshot.handlers
        var record = context.record
        var cancelled = execution.withLock { slot in
            slot.live?.isHandling = true
            slot.live?.requestedRetry = nil
            return slot.live?.isCancelled ?? false
        }
        // A download whose file is already in place has succeeded: a cancel that came after the move cannot undo it,
        // so it does not turn the result into `cancelled` (<doc:LargeTransfers>).
        if cancelled, case .success(let response) = received, response.fileURL != nil { cancelled = false }
        let history = record.history
        var outcome: Outcome
        switch received {
        case _ where cancelled: outcome = .failure(SimpleNetworkingError.cancelled.withAttempts(history))
        case .success(let response):
            // The transformed value goes to the caller with the response (``TransformedRequest/value()``).
            let value = try? transformed?.get()
            outcome = .success(response.with(attempts: history, decoder: client.configuration.decoder, value: value))
        case .failure(let error): outcome = .failure(error.withAttempts(history))
        }
        var (stopped, ranStatusHandlers) = (false, false)
        if case .success(let response) = outcome, let statusHandlers = handlers.statusHandlers[response.statusCode] {
            ranStatusHandlers = true
            for handler in statusHandlers where !handler(self, response) {
                stopped = true
                break
            }
        }
        // A retry can only have been asked for while status handlers ran; one asked for from another thread meanwhile
        // is read as the execution ends.
        let requested = ranStatusHandlers ? execution.withLock { $0.live?.takeRequestedRetry() } : nil
        let ending = RetryDecision.Ending(
            outcome: outcome, requested: requested, stopped: stopped, cancelled: cancelled,
            streamedBody: context.snapshot.parts.hasStreamedBody, clock: client.configuration.clock)
        let rules = context.snapshot.rules
        let shown: (outcome: Outcome, errorHandlers: Bool)
        switch RetryDecision.afterAttempt(
            ending, rules: rules, record: &record, random: { client.configuration.random.next() },
            takeToken: { client.retryBudget.takeToken(now: $0) })
        {
        case .retry(let retry):
            execution.withLock { $0.live?.isHandling = false }
            return (.retry(retry), record)
        case .deliver(let delivered):
            shown = (deliver(delivered, transformed: transformed, to: handlers), false)
        case .finish(let outcome, let errorHandlers):
            shown = (outcome, errorHandlers)
        }
        var ended = false
        let verdict = execution.withLock { slot in
            let verdict = RetryDecision.beforeEnd(
                with: shown.outcome, errorHandlers: shown.errorHandlers, requested: slot.live?.takeRequestedRetry(),
                cancelled: cancelled, rules: rules, record: &record)
            // Ended under the lock that took the retry: one asked for from another thread from now on starts the next
            // execution, and is never lost.
            if case .finish = verdict { ended = slot.end(id, record: record) } else { slot.live?.isHandling = false }
            return verdict
        }
        switch verdict {
        case .retry(let retry):
            return (.retry(retry), record)
        case .finish(let outcome, let errorHandlers):
            if ended { context.snapshot.parts.progress?.finishUpdates() }
            if errorHandlers, case .failure(let error) = outcome {
                for handler in handlers.errorHandlers { handler(error, error.response) }
            }
            for completion in handlers.completionHandlers { completion() }
            return (.finish(outcome), record)
        case .deliver(let outcome):
            // Not reached: the verdict as the execution ends is to retry or to finish.
            return (.finish(outcome), record)
        }
    }

    /// Shows `outcome` to the handlers that see it: a 2xx to the success handlers, then those of its value (or, when
    /// its transform threw, to the error handlers); anything else to the error handlers, as a typed error body when
    /// one decoded, else ``SimpleNetworkingError/unacceptableStatus(_:)``.
    /// - Returns: The outcome the execution ends with, unless a handler asked for a retry.
    private func deliver(_ outcome: Outcome, transformed: TransformResult?, to handlers: Handlers) -> Outcome {
        let error: SimpleNetworkingError
        switch outcome {
        case .success(let response) where response.isSuccess:
            if case .failure(let error) = transformed {
                for handler in handlers.errorHandlers { handler(error, response) }
                return .failure(error)
            }
            for handler in handlers.successHandlers { handler(response) }
            if case .success(let value) = transformed {
                for handler in handlers.valueHandlers { handler(value.value) }
            }
            return outcome
        case .success(let response):
            // A typed error body (decodingErrors) replaces the plain status error; one that did not decode is nil.
            if case .failure(let typed) = transformed { error = typed } else { error = .unacceptableStatus(response) }
        case .failure(let failure):
            error = failure
        }
        for handler in handlers.errorHandlers { handler(error, error.response) }
        return .failure(error)
    }

    /// Runs the transform steps, here in the execution's task rather than on the handler queue, so that decoding never
    /// runs on the main thread (<doc:RequestsAndResponses>): the value step on a 2xx response, the error-body step
    /// on any other status, after the request's validation of a 2xx (which fails it when the response is not
    /// accepted). `nil` without a step for the response, or when its error body did not decode.
    private func transformedValue(of outcome: Outcome, on client: SimpleNetworking, context: HandlingContext)
        -> TransformResult?
    {
        guard case .success(let received) = outcome else { return nil }
        if received.isSuccess, let failure = context.snapshot.handlers.validation?.failure(for: received) {
            // A download that fails validation leaves no file behind, as after a status outside 2xx.
            if let file = received.fileURL { try? FileManager.default.removeItem(at: file) }
            return .failure(failure.withAttempts(context.record.history))
        }
        let own = context.snapshot.handlers.transform
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

}

// MARK: - What the handler job reads

extension SimpleRequest.Handlers {
    /// Whether any handler was added; a 2xx without them is decided without the handler queue.
    var hasHandlers: Bool {
        !statusHandlers.isEmpty || !errorHandlers.isEmpty || !successHandlers.isEmpty || !valueHandlers.isEmpty
            || !completionHandlers.isEmpty
    }
}

extension HTTPStatusHandlers {
    /// The handlers that apply to `status`, in the order added, or `nil` when there are none.
    public subscript(status: Int) -> [Handler]? {
        let matching = entries.lazy.filter { $0.statuses.contains(status) }.map(\.handler)
        return matching.isEmpty ? nil : Array(matching)
    }

    /// The number of handlers registered.
    public var count: Int { entries.count }

    /// Whether no handler is registered.
    public var isEmpty: Bool { entries.isEmpty }
}

extension SimpleRequest.LiveExecution {
    /// Whether the execution was cancelled, read from any thread.
    var isCancelled: Bool { task?.isCancelled ?? signal?.isCancelled ?? false }

    /// The retry a handler asked for, which is then no longer asked for.
    mutating func takeRequestedRetry() -> SimpleRequest.Retry? {
        defer { requestedRetry = nil }
        return requestedRetry
    }
}

extension SimpleRequest.Parts {
    /// Whether some of a response stream's body has been accepted for its reader: a retry would send it again.
    var hasStreamedBody: Bool {
        guard case .stream(let stream) = receiving else { return false }
        return stream.hasStarted
    }
}
