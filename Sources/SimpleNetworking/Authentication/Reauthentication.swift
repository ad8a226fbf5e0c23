import Foundation

/// How often a client may refresh its credentials: at most ``maximumRefreshes`` in any ``interval``.
///
/// A server that keeps answering 401 after a successful refresh would otherwise cause a refresh storm; past the
/// limit, requests fail with ``SimpleNetworkingError/authenticationFailed(reason:underlying:)``.
public struct RefreshLimit: Sendable {
    /// The most refreshes in any window of ``interval`` seconds.
    public var maximumRefreshes: Int
    /// The window, in seconds.
    public var interval: TimeInterval

    /// Creates a limit.
    /// - Parameters:
    ///   - maximumRefreshes: The most refreshes per window. Default: 3.
    ///   - interval: The window in seconds. Default: 60.
    public init(maximumRefreshes: Int = 3, interval: TimeInterval = 60) {
        self.maximumRefreshes = max(0, maximumRefreshes)
        self.interval = max(0, interval)
    }
}

/// Single-flight credential refresh for one client.
///
/// Credentials have an epoch: the number of refreshes finished. Each attempt records the epoch it was sent with.
/// When it gets a 401:
/// - a refresh in flight: it waits for that one;
/// - a refresh finished since it was sent: it is retried at once with that refresh's result, with no new refresh;
/// - otherwise it starts a refresh (if the ``RefreshLimit`` allows) and waits for it.
/// Every waiter is resumed with the refresh's result; a cancelled waiter leaves the queue at once.
final class Reauthentication: Sendable {
    typealias Outcome = Result<Void, SimpleNetworkingError>

    /// Set while ``SimpleNetworking/authenticate()`` runs, so that the requests it makes are marked and never wait
    /// for the refresh that is waiting for them.
    @TaskLocal static var isAuthenticating = false

    private struct State {
        var epoch = 0
        var lastOutcome: Outcome = .success(())
        var isRefreshing = false
        var waiters: [Int: CheckedContinuation<Outcome, Never>] = [:]
        var cancelledWaiters: Set<Int> = []
        var nextWaiter = 0
        var refreshStarts: [Date] = []
    }

    private enum Step {
        case resume(Outcome)
        case wait
        case startRefresh
    }

    private let state = Locked(State())
    private let limit: RefreshLimit
    private let clock: SimpleClock

    init(limit: RefreshLimit, clock: SimpleClock) {
        self.limit = limit
        self.clock = clock
    }

    /// The number of refreshes finished; read before the headers of each attempt are built.
    var epoch: Int { state.withLock { $0.epoch } }

    /// Waits until credentials newer than `sentEpoch` exist, refreshing them if nobody has yet.
    func awaitCredentials(newerThan sentEpoch: Int, client: SimpleNetworking) async -> Outcome {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let step = state.withLock { state in
                    decide(&state, sentEpoch: sentEpoch, id: id, continuation: continuation)
                }
                switch step {
                case .resume(let outcome): continuation.resume(returning: outcome)
                case .wait: break
                case .startRefresh: Task { await refresh(using: client) }
                }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.cancelledWaiters.insert(id)
                return state.waiters.removeValue(forKey: id)
            }
            waiter?.resume(returning: .failure(.cancelled))
        }
    }

    private func decide(
        _ state: inout State, sentEpoch: Int, id: Int, continuation: CheckedContinuation<Outcome, Never>
    ) -> Step {
        if state.cancelledWaiters.remove(id) != nil { return .resume(.failure(.cancelled)) }
        if state.isRefreshing {
            state.waiters[id] = continuation
            return .wait
        }
        if state.epoch > sentEpoch { return .resume(state.lastOutcome) }
        let now = clock.now()
        state.refreshStarts.removeAll { now.timeIntervalSince($0) >= limit.interval }
        guard state.refreshStarts.count < limit.maximumRefreshes else {
            return .resume(
                .failure(
                    .authenticationFailed(
                        reason: "the refresh limit of \(limit.maximumRefreshes) per "
                            + "\(DurationText.describe(limit.interval)) was reached",
                        underlying: nil)))
        }
        state.refreshStarts.append(now)
        state.isRefreshing = true
        state.waiters[id] = continuation
        return .startRefresh
    }

    /// Runs the client's `authenticate()` once and hands its result to every waiter.
    private func refresh(using client: SimpleNetworking) async {
        let outcome: Outcome
        do {
            try await Self.$isAuthenticating.withValue(true) { try await client.authenticate() }
            outcome = .success(())
        } catch {
            outcome = .failure(Self.failure(error))
        }
        let waiters = state.withLock { state in
            state.epoch += 1
            state.lastOutcome = outcome
            state.isRefreshing = false
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    private static func failure(_ error: any Error) -> SimpleNetworkingError {
        switch error {
        case let error as SimpleNetworkingError:
            if case .authenticationFailed = error { return error }
            return .authenticationFailed(reason: "the authentication request failed: \(error)", underlying: error)
        default:
            return .authenticationFailed(reason: "authenticate() threw \(type(of: error))", underlying: error)
        }
    }
}

// MARK: - The client's side

extension SimpleNetworking {
    /// Makes `request` re-authenticate when it receives `status`: the client refreshes its credentials with
    /// ``authenticate()`` and sends the request again.
    ///
    /// Call it from an ``execute(request:)`` override, before `super`; calling it again for the same request (as
    /// happens on every retry) does nothing. It holds under concurrency:
    /// - however many requests get `status` at once, one ``authenticate()`` runs; the others wait and are retried
    ///   when it succeeds, and all fail at once with its error when it fails;
    /// - a request sent with credentials older than the current ones is retried with the current ones, with no
    ///   new refresh;
    /// - each request is retried once per refresh, and retries count against the request's retry limit;
    /// - requests made inside ``authenticate()`` are never re-authenticated, so a 401 from the authentication
    ///   endpoint cannot recurse;
    /// - refreshes are limited by ``Configuration/refreshLimit`` (default 3 per 60 s);
    /// - cancelling a waiting request removes it from the queue; the others are unaffected.
    ///
    /// Your own handlers for `status` run first and can stop the chain before re-authentication is tried.
    ///
    /// ```swift
    /// final class MyAPI: SimpleNetworking, @unchecked Sendable {
    ///     override func authenticate() async throws {
    ///         let response = try await get("/auth").accept(.json).response()
    ///         defaultHeaders["Authorization"] = response.json?["token"] as? String
    ///     }
    ///
    ///     override func execute(request: SimpleRequest) {
    ///         reauthenticate(request, on: 401)
    ///         super.execute(request: request)
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - request: The request being executed.
    ///   - status: The status that means the credentials are no longer valid. Default: 401.
    public func reauthenticate(_ request: SimpleRequest, on status: Int = 401) {
        guard request.installReauthentication(on: status) else { return }
        request.on(httpStatus: status) { [self] request, _ in
            // A request that authenticate() itself sent is never re-authenticated: its 401 goes on to the handlers.
            guard !request.isAuthenticationExecution else { return true }
            let sentEpoch = request.credentialEpoch
            request.retry(
                after: { [self] () async throws(SimpleNetworkingError) in
                    try await reauthentication.awaitCredentials(newerThan: sentEpoch, client: self).get()
                })
            return false
        }
    }
}

extension SimpleRequest {
    /// Marks `status` as re-authenticated for this request; `false` when it already is.
    func installReauthentication(on status: Int) -> Bool {
        state.withLock { $0.reauthenticationStatuses.insert(status).inserted }
    }

    /// Whether the current execution was started inside ``SimpleNetworking/authenticate()``.
    var isAuthenticationExecution: Bool { execution.withLock { $0.record.isAuthentication } }

    /// The credential epoch the latest attempt was sent with.
    var credentialEpoch: Int { execution.withLock { $0.record.credentialEpoch } }
}
