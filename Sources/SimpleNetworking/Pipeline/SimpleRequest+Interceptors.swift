import Foundation

extension SimpleRequest {
    /// Adds an interceptor to this request's pipeline, after the client's
    /// (``SimpleNetworking/Configuration/interceptors``) and those added before it: see ``RequestInterceptor``.
    ///
    /// ```swift
    /// let user = try await api.get("/me").intercept(with: UserAgent()).decode(User.self)
    /// ```
    /// - Parameter interceptor: The interceptor.
    /// - Returns: This request.
    @discardableResult
    public func intercept(with interceptor: any RequestInterceptor) -> Self {
        update { $0.parts.interceptors.append(interceptor) }
    }

    /// Sends one attempt's `request` through `interceptors`, whose last `next` is `send` (the hops).
    ///
    /// It runs in a task of its own, so that cancelling the execution ends the attempt at once even while an
    /// interceptor holds it without heeding cancellation (its task is cancelled and left to end), and so does the
    /// overall deadline.
    static func intercepted(
        _ request: HTTPRequest, through interceptors: [any RequestInterceptor], context: InterceptorContext,
        signal: CancellationSignal?, remaining: TimeInterval?, deadlineError: SimpleNetworkingError,
        send: @escaping @Sendable (HTTPRequest) async throws(SimpleNetworkingError) -> SimpleResponse
    ) async -> Outcome {
        let chain = InterceptorChain(
            interceptors: interceptors, context: context,
            allowsHostHeader: context.client.configuration.allowsHostHeader, send: send)
        let clock = context.client.configuration.clock
        let raced = await abandonable(signal: signal, cancelled: Raced<Outcome>.done(.failure(.cancelled))) {
            await race(remaining, clock: clock) { await chain.outcome(of: request) }
        }
        switch raced {
        case .done(let outcome): return outcome
        case .deadline: return .failure(deadlineError)
        }
    }

    /// The retry the first of `interceptors` that asks for one asks for after `outcome`, with its name; `nil` when
    /// none does, and without asking when the execution was cancelled or a stream has handed part of its body over.
    func interceptorRetry(
        after outcome: Outcome, interceptors: [any RequestInterceptor], context: InterceptorContext,
        streamedBody: Bool, signal: CancellationSignal?
    ) async -> RetryAsked? {
        if case .failure(.cancelled) = outcome { return nil }
        guard !interceptors.isEmpty, !(Task.isCancelled || signal?.isCancelled == true), !streamedBody else {
            return nil
        }
        return await Self.abandonable(signal: signal, cancelled: nil) {
            for interceptor in interceptors {
                let delay: TimeInterval
                switch await interceptor.retry(after: outcome, context: context) {
                case .doNotRetry: continue
                case .retry: delay = 0
                case .retryAfter(let seconds): delay = seconds.isNaN ? 0 : max(0, seconds)
                }
                return RetryAsked(
                    retry: Retry(countsAgainstLimit: true, delay: delay),
                    interceptor: String(describing: type(of: interceptor)))
            }
            return nil
        }
    }

    /// The retry an interceptor asked for, and the interceptor's name for the attempt's history.
    struct RetryAsked: Sendable {
        var retry: Retry
        var interceptor: String
    }

    /// Runs `body` in a task of its own and returns what it returns, or `cancelled` at once when the execution is
    /// cancelled (its task, or `signal`); `body`'s task is then cancelled and left to end.
    private static func abandonable<Value: Sendable>(
        signal: CancellationSignal?, cancelled: Value, _ body: @escaping @Sendable () async -> Value
    ) async -> Value {
        let meeting = Rendezvous<Value>()
        let work = Task { meeting.offer(await body()) }
        let cancel: @Sendable () -> Void = {
            work.cancel()
            meeting.offer(cancelled)
        }
        return await withTaskCancellationHandler {
            guard let signal else { return await meeting.value() }
            return await signal.withCancellationHandler({ await meeting.value() }, onCancel: cancel)
        } onCancel: {
            cancel()
        }
    }
}

/// The interceptors of one attempt, each handed the next as `next`; the last `next` sends.
struct InterceptorChain: Sendable {
    let interceptors: [any RequestInterceptor]
    let context: InterceptorContext
    let allowsHostHeader: Bool
    let send: @Sendable (HTTPRequest) async throws(SimpleNetworkingError) -> SimpleResponse

    /// The attempt's outcome: `request` through every interceptor.
    func outcome(of request: HTTPRequest) async -> Result<SimpleResponse, SimpleNetworkingError> {
        do throws(SimpleNetworkingError) {
            return .success(try await proceed(request, from: 0))
        } catch {
            return .failure(error)
        }
    }

    private func proceed(_ request: HTTPRequest, from index: Int) async throws(SimpleNetworkingError)
        -> SimpleResponse
    {
        guard index < interceptors.count else { return try await send(request) }
        let next = InterceptorNext { request throws(SimpleNetworkingError) in
            try check(request)
            return try await proceed(request, from: index + 1)
        }
        return try await interceptors[index].intercept(request, context: context, next: next)
    }

    /// Checks a request an interceptor passes on as the client checks its own: an http or https URL with a host, a
    /// method that is a token, and header names and values that are valid HTTP.
    private func check(_ request: HTTPRequest) throws(SimpleNetworkingError) {
        let scheme = request.url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", request.url.host?.isEmpty == false else {
            throw .invalidURL(reason: "an interceptor passed on a URL that is not http or https with a host")
        }
        try RequestValidation.validate(method: request.method)
        try RequestValidation.validate(request.headers, allowsHostHeader: allowsHostHeader)
    }
}

/// A value handed over once, from whichever side comes first, to one waiter.
private final class Rendezvous<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value, Never>?
    }

    private let state = Locked(State())

    /// Hands `value` over, unless one was already.
    func offer(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    /// The value, once one is offered.
    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
