import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// When the client retries a request by itself, and how long it waits in between.
///
/// Set one per client (``SimpleNetworking/Configuration/retryPolicy``) and override it per request with
/// ``SimpleRequest/retryPolicy(_:)``. Status handlers see every response first: a handler that stops the chain
/// decides, and the policy is only asked when all status handlers continued.
///
/// | Setting | Default |
/// |---|---|
/// | ``maximumAttempts`` | 3 (the first attempt and two retries) |
/// | ``retryableMethods`` | GET, HEAD, PUT, DELETE, OPTIONS, TRACE (idempotent, RFC 9110) |
/// | ``retryableStatuses`` | 408, 429, 500, 502, 503, 504 |
/// | ``backoff`` | exponential from 0.5 s, doubling, capped at 30 s, full jitter |
/// | ``maximumRetryAfter`` | 60 s |
/// | ``retriesTimeouts`` | `false` |
public struct RetryPolicy: Sendable {
    /// The most attempts one execution may make through this policy, the first included. 1 turns retries off.
    public var maximumAttempts: Int
    /// Methods retried after a status or a failure mid-request. Others are retried only when the request carries an
    /// `Idempotency-Key` header, which the same request resends unchanged on every attempt.
    public var retryableMethods: Set<HTTPMethod>
    /// Statuses that make a request eligible for a retry.
    public var retryableStatuses: Set<Int>
    /// The wait before each retry when the server gives no `Retry-After`.
    public var backoff: Backoff
    /// The longest `Retry-After` honoured; longer values are clamped to this.
    public var maximumRetryAfter: TimeInterval
    /// Whether a request that timed out is retried (retryable methods only).
    ///
    /// Off by default, as in OkHttp, Go's net/http and requests: a timeout means the request may have reached the
    /// server, and retrying it multiplies the load on the slowest server while the caller waits several timeouts
    /// instead of one. A connection that was never established is retried whatever this says.
    public var retriesTimeouts: Bool

    /// The idempotent methods of RFC 9110, section 9.2.2.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    /// The default policy.
    public static let `default` = RetryPolicy()

    /// No automatic retries.
    public static let never = RetryPolicy(maximumAttempts: 1)

    /// Creates a policy.
    /// - Parameters:
    ///   - maximumAttempts: The most attempts, the first included. Default: 3.
    ///   - retryableMethods: Methods retried. Default: ``idempotentMethods``.
    ///   - retryableStatuses: Statuses retried. Default: 408, 429, 500, 502, 503, 504.
    ///   - backoff: The wait between attempts. Default: ``Backoff/init(base:multiplier:cap:)`` with its defaults.
    ///   - maximumRetryAfter: The longest `Retry-After` honoured, in seconds. Default: 60.
    ///   - retriesTimeouts: Whether a timed-out request is retried. Default: `false`.
    public init(
        maximumAttempts: Int = 3,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504],
        backoff: Backoff = Backoff(),
        maximumRetryAfter: TimeInterval = 60,
        retriesTimeouts: Bool = false
    ) {
        self.retriesTimeouts = retriesTimeouts
        self.maximumAttempts = max(1, maximumAttempts)
        self.retryableMethods = retryableMethods
        self.retryableStatuses = retryableStatuses
        self.backoff = backoff
        self.maximumRetryAfter = max(0, maximumRetryAfter)
    }

    /// Whether a request may be sent again after it may have reached the server.
    /// - Parameters:
    ///   - method: The request method.
    ///   - headers: The request headers; an `Idempotency-Key` opts any method in.
    /// - Returns: `true` when the method is retryable or the request carries an idempotency key.
    public func allowsRetry(of method: HTTPMethod, headers: HTTPHeaders) -> Bool {
        retryableMethods.contains(method) || headers.contains("Idempotency-Key")
    }

    /// The wait before the next attempt, or `nil` when the outcome should not be retried.
    ///
    /// A connection that was never established (cannot connect, host not found) is retried for any method; a
    /// connection lost mid-request only for retryable methods; a timeout only when ``retriesTimeouts`` is set, and
    /// then only for retryable methods; a status only when it is in
    /// ``retryableStatuses`` and the method is retryable. `Retry-After` (seconds or HTTP-date) sets the wait when
    /// valid, clamped to ``maximumRetryAfter``; otherwise ``backoff`` does.
    /// - Parameters:
    ///   - attempt: How many attempts have been made, this one included (1 after the first).
    ///   - method: The request method.
    ///   - headers: The request headers.
    ///   - outcome: The response or the failure of this attempt.
    ///   - now: The current time, for `Retry-After` dates.
    ///   - random: A number in `0..<1` for jitter.
    /// - Returns: Seconds to wait, or `nil` for no retry.
    public func retryDelay(
        afterAttempt attempt: Int, method: HTTPMethod, headers: HTTPHeaders,
        outcome: Result<SimpleResponse, SimpleNetworkingError>, now: Date, random: Double
    ) -> TimeInterval? {
        guard attempt < maximumAttempts else { return nil }
        let backoffDelay = backoff.delay(forRetry: attempt, random: random)
        switch outcome {
        case .success(let response):
            guard retryableStatuses.contains(response.statusCode), allowsRetry(of: method, headers: headers) else {
                return nil
            }
            guard let value = response.headers["Retry-After"], let wait = RetryAfter.delay(from: value, now: now) else {
                return backoffDelay
            }
            return min(wait, maximumRetryAfter)
        case .failure(.transportFailed(let failure, _)):
            if Self.neverConnected.contains(failure.category) { return backoffDelay }
            if failure.category == .timedOut, !retriesTimeouts { return nil }
            if Self.failedMidRequest.contains(failure.category), allowsRetry(of: method, headers: headers) {
                return backoffDelay
            }
            return nil
        case .failure:
            return nil
        }
    }

    /// Failures where no byte reached the server: safe to retry for any method.
    static let neverConnected: Set<TransportFailure.Category> = [.cannotConnect, .hostNotFound]

    /// Failures after the request may have reached the server: retried only for retryable methods.
    static let failedMidRequest: Set<TransportFailure.Category> = [.timedOut, .connectionLost, .badServerResponse]
}

/// Exponential backoff with full jitter: the wait before retry `n` is a random time in
/// `0...min(cap, base * multiplier^(n-1))`, which spreads the retries of many clients apart.
public struct Backoff: Sendable {
    /// The upper bound of the first wait, in seconds.
    public var base: TimeInterval
    /// How much the upper bound grows per retry.
    public var multiplier: Double
    /// The largest upper bound, in seconds.
    public var cap: TimeInterval

    /// Creates a backoff.
    /// - Parameters:
    ///   - base: The upper bound of the first wait, in seconds. Default: 0.5.
    ///   - multiplier: The growth per retry. Default: 2.
    ///   - cap: The largest wait, in seconds. Default: 30.
    public init(base: TimeInterval = 0.5, multiplier: Double = 2, cap: TimeInterval = 30) {
        self.base = max(0, base)
        self.multiplier = max(1, multiplier)
        self.cap = max(0, cap)
    }

    /// The upper bound of the wait before retry `retry` (1 for the first retry).
    /// - Parameter retry: The retry number, from 1.
    /// - Returns: `min(cap, base * multiplier^(retry-1))`.
    public func ceiling(forRetry retry: Int) -> TimeInterval {
        let exponent = Double(max(0, retry - 1))
        let grown = base * pow(multiplier, exponent)
        return grown.isFinite ? min(cap, grown) : cap
    }

    /// The wait before retry `retry`, drawn with full jitter.
    /// - Parameters:
    ///   - retry: The retry number, from 1.
    ///   - random: A number in `0..<1`.
    /// - Returns: `random * ceiling(forRetry: retry)`.
    public func delay(forRetry retry: Int, random: Double) -> TimeInterval {
        min(max(random, 0), 1) * ceiling(forRetry: retry)
    }
}
