import Foundation

/// The one place that decides whether an execution sends another attempt: pure functions from what an attempt ended
/// with, what interceptors and handlers asked for, the retry policy, the retry limit, the execution's record (its
/// attempts, retries and deadline) and the clock, to a verdict. The execution loop asks it and does what it says;
/// nothing else decides (<doc:HowARequestRuns>).
///
/// An attempt is judged when it ends (``afterAttempt(_:rules:record:random:takeToken:)``, after the interceptors and
/// the status handlers, before the success or error handlers), and, when that verdict is to end the execution, once
/// more as it ends, under the lock that ends it (``beforeEnd(with:errorHandlers:requested:cancelled:rules:record:)``):
/// a retry a success or error handler asked for, or one asked for from another thread meanwhile, is then taken or
/// refused, never lost.
package enum RetryDecision {
    /// What the decision reads about the request, taken from one snapshot of it.
    package struct Rules: Sendable {
        /// The automatic retry policy: the request's, else the client's.
        package var policy: RetryPolicy
        package var method: HTTPMethod
        package var headers: HTTPHeaders
        /// How many retries interceptors and handlers may ask for in one execution.
        package var limit: Int

        /// Rules from the request's (or client's) policy and limit.
        package init(policy: RetryPolicy, method: HTTPMethod, headers: HTTPHeaders, limit: Int) {
            self.policy = policy
            self.method = method
            self.headers = headers
            self.limit = limit
        }
    }

    /// What one attempt ended with.
    package struct Ending: Sendable {
        /// The response or failure, as the handlers see it.
        package var outcome: SimpleRequest.Outcome
        /// The retry an interceptor or a status handler asked for.
        package var requested: SimpleRequest.Retry?
        /// A status handler returned `false`.
        package var stopped = false
        /// The execution was cancelled.
        package var cancelled = false
        /// Part of a response stream's body was handed to its reader: a retry would send it again.
        package var streamedBody = false
        /// The client's clock, read only when the deadline or the policy needs the time.
        package var clock: SimpleClock

        /// An ending, judged by `clock`.
        package init(
            outcome: SimpleRequest.Outcome, requested: SimpleRequest.Retry?, stopped: Bool = false,
            cancelled: Bool = false, streamedBody: Bool = false, clock: SimpleClock
        ) {
            self.outcome = outcome
            self.requested = requested
            self.stopped = stopped
            self.cancelled = cancelled
            self.streamedBody = streamedBody
            self.clock = clock
        }
    }

    /// What the execution does next.
    package enum Verdict: Sendable {
        /// Another attempt, after the retry's wait.
        case retry(SimpleRequest.Retry)
        /// The success handlers (a 2xx) or the error handlers see this outcome; a retry they ask for is judged next.
        case deliver(SimpleRequest.Outcome)
        /// The execution ends with this outcome; `errorHandlers`: its failure has not been shown to them yet.
        case finish(SimpleRequest.Outcome, errorHandlers: Bool)

        /// The verdict on a retry ``take(_:limit:record:)`` took, or on the limit it reported.
        init(_ taken: Result<SimpleRequest.Retry, SimpleNetworkingError>) {
            switch taken {
            case .success(let retry): self = .retry(retry)
            case .failure(let error): self = .finish(.failure(error), errorHandlers: true)
            }
        }
    }

    /// The verdict when an attempt ends, in this order: a cancelled execution delivers `cancelled`; a retry asked for
    /// is taken if the retry limit allows it; a status handler's stop ends the execution; past the deadline the
    /// handlers get ``SimpleNetworkingError/deadlineExceeded(seconds:attempts:)``; a 2xx is delivered; otherwise the
    /// retry policy is asked, then whether its wait ends before the deadline, and last the retry budget (`takeToken`,
    /// called at most once, so that nothing after it refuses a retry that took a token).
    /// - Parameters:
    ///   - random: A number in 0..<1 for the policy's jitter, drawn only when the policy is asked.
    ///   - takeToken: Takes a token from the client's retry budget.
    package static func afterAttempt(
        _ ending: Ending, rules: Rules, record: inout SimpleRequest.ExecutionRecord, random: () -> Double,
        takeToken: (Date) -> Bool
    ) -> Verdict {
        if ending.cancelled {
            return .deliver(.failure(SimpleNetworkingError.cancelled.withAttempts(record.history)))
        }
        if let requested = ending.requested { return Verdict(take(requested, limit: rules.limit, record: &record)) }
        if ending.stopped, case .success(let response) = ending.outcome {
            return .finish(.failure(.stoppedByHandler(response)), errorHandlers: false)
        }
        if let remaining = record.remaining(on: ending.clock), remaining <= 0 {
            return .deliver(.failure(record.deadlineExceeded))
        }
        if case .success(let response) = ending.outcome, response.isSuccess { return .deliver(ending.outcome) }
        let now = ending.clock.now()
        guard !ending.streamedBody,
            let delay = rules.policy.retryDelay(
                afterAttempt: record.attempts, method: rules.method, headers: rules.headers, outcome: ending.outcome,
                now: now, random: random()),
            delay < record.remaining(at: now) ?? .infinity,
            takeToken(now)
        else { return .deliver(ending.outcome) }
        return .retry(SimpleRequest.Retry(countsAgainstLimit: false, delay: delay, tookBudgetToken: true))
    }

    /// The verdict as the execution is about to end with `outcome`: a retry a handler asked for since the attempt was
    /// judged (a success or error handler, or a status handler on another thread) is taken if the execution was not
    /// cancelled, the retry limit was not reported, and the limit allows it; otherwise the execution ends.
    /// - Parameter errorHandlers: Whether the error handlers have yet to see `outcome`'s failure.
    package static func beforeEnd(
        with outcome: SimpleRequest.Outcome, errorHandlers: Bool, requested: SimpleRequest.Retry?, cancelled: Bool,
        rules: Rules, record: inout SimpleRequest.ExecutionRecord
    ) -> Verdict {
        guard let requested, !cancelled, !record.exhausted else {
            return .finish(outcome, errorHandlers: errorHandlers)
        }
        return Verdict(take(requested, limit: rules.limit, record: &record))
    }

    /// A retry asked for by an interceptor or a handler, or after the execution ended (``SimpleRequest/retry()``):
    /// taken, unless it counts against the retry limit and the limit is spent; then the execution ends with
    /// ``SimpleNetworkingError/retryLimitExceeded(attempts:response:)``, which the error handlers have yet to see, and
    /// later retries do nothing.
    package static func take(
        _ retry: SimpleRequest.Retry, limit: Int, record: inout SimpleRequest.ExecutionRecord
    ) -> Result<SimpleRequest.Retry, SimpleNetworkingError> {
        guard retry.countsAgainstLimit else { return .success(retry) }
        record.handlerRetries += 1
        guard record.handlerRetries > limit else { return .success(retry) }
        record.exhausted = true
        return .failure(.retryLimitExceeded(attempts: record.attempts, response: record.lastResponse))
    }

    /// Why the next attempt must not be sent: the execution was cancelled, or its deadline has passed.
    package static func beforeAttempt(
        record: SimpleRequest.ExecutionRecord, clock: SimpleClock, cancelled: Bool
    ) -> SimpleNetworkingError? {
        if cancelled { return .cancelled }
        if let remaining = record.remaining(on: clock), remaining <= 0 { return record.deadlineExceeded }
        return nil
    }
}
