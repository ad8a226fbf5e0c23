import Foundation

/// A per-client limit on automatic retries, as a token bucket: each retry takes one token, and tokens come back at
/// a steady rate. During an outage the bucket empties and requests fail after their first attempt, so retries do not
/// multiply the load on a struggling server.
///
/// Default: 10 tokens, refilled at 1 per second. Handler-driven retries (``SimpleRequest/retry()``) and
/// re-authentication do not use the budget.
public struct RetryBudget: Sendable {
    /// The most tokens the bucket holds, and what it starts with.
    public var capacity: Double
    /// Tokens added per second.
    public var refillPerSecond: Double

    /// Creates a budget.
    /// - Parameters:
    ///   - capacity: The most tokens. Default: 10.
    ///   - refillPerSecond: Tokens added per second. Default: 1.
    public init(capacity: Double = 10, refillPerSecond: Double = 1) {
        self.capacity = max(0, capacity)
        self.refillPerSecond = max(0, refillPerSecond)
    }

    /// No limit.
    public static let unlimited = RetryBudget(capacity: .infinity, refillPerSecond: .infinity)
}

/// The client's live bucket for its ``RetryBudget``.
final class RetryTokenBucket: Sendable {
    private struct State {
        var tokens: Double
        var updated: Date
    }

    private let budget: RetryBudget
    private let state: Locked<State>

    init(_ budget: RetryBudget, now: Date) {
        self.budget = budget
        state = Locked(State(tokens: budget.capacity, updated: now))
    }

    /// Takes one token if there is one.
    /// - Returns: Whether a retry may go ahead.
    func takeToken(now: Date) -> Bool {
        guard budget.capacity.isFinite else { return true }
        return state.withLock { state in
            let elapsed = max(0, now.timeIntervalSince(state.updated))
            state.tokens = min(budget.capacity, state.tokens + elapsed * budget.refillPerSecond)
            state.updated = now
            guard state.tokens >= 1 else { return false }
            state.tokens -= 1
            return true
        }
    }

    /// Gives back the token of a retry that was scheduled but not sent (cancelled, or stopped by the deadline).
    func returnToken() {
        guard budget.capacity.isFinite else { return }
        state.withLock { $0.tokens = min(budget.capacity, $0.tokens + 1) }
    }
}
