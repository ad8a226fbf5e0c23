import Foundation

/// A stage of every attempt's pipeline, as a value: it sees the request on its way out, may change it, and sees the
/// response on its way back, which it may replace; after an attempt it may ask for another.
///
/// Register interceptors for every request of a client in ``SimpleNetworking/Configuration/interceptors``, or for one
/// request with ``SimpleRequest/intercept(with:)``. Each attempt goes through them in that order, the client's first,
/// each calling the next with `next`; the last `next` follows the redirects and sends through the transport:
///
/// ```
/// execute(request:) ─▶ build (base URL, default headers, validation) ─▶ interceptors ─▶ redirects, cookies ─▶ transport
/// ```
///
/// The client's HTTP cache (``SimpleNetworking/Configuration/cache``), when it has one, is the last stage before the
/// redirects: an interceptor sees a response the cache answered like any other, its ``SimpleResponse/source`` saying so.
///
/// Calling `next` later, or never, is the interceptor's choice, as calling `super` in
/// ``SimpleNetworking/execute(request:)`` is: an interceptor that returns a response of its own without calling it
/// answers the attempt without the network. Cancelling the request ends the attempt at once with
/// ``SimpleNetworkingError/cancelled``, even while an interceptor holds it; its task is cancelled.
///
/// ```swift
/// struct UserAgent: RequestInterceptor {
///     func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
///         async throws(SimpleNetworkingError) -> SimpleResponse
///     {
///         var request = request
///         request.headers["User-Agent"] = "Example/1.0"
///         return try await next(request)
///     }
/// }
/// ```
///
/// A request an interceptor changes is checked again before it is sent, as the client checks its own: a header name
/// or value that is not valid HTTP, or a URL that is not http or https with a host, fails with
/// ``SimpleNetworkingError/invalidRequest(reason:)`` or ``SimpleNetworkingError/invalidURL(reason:)`` and nothing
/// is sent. The client's default headers are already in the request (for the client's origin); cookies are added
/// per redirect hop after the interceptors.
public protocol RequestInterceptor: Sendable {
    /// Sends `request` on with `next`, or answers it. Default: `try await next(request)`.
    /// - Parameters:
    ///   - request: The attempt's request, as the client and the interceptors before this one made it.
    ///   - context: The request's identity and the attempt's number.
    ///   - next: The rest of the pipeline.
    /// - Returns: The response of the attempt, after its redirects: `next`'s, or one of the interceptor's own.
    /// - Throws: The error the attempt fails with; the retry policy and the handlers see it as any other.
    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse

    /// Whether the request runs again after an attempt that ended with `outcome`, asked before any handler runs:
    /// a token refresh, say, for a 401. Default: ``InterceptorRetry/doNotRetry``.
    ///
    /// A retry an interceptor asks for counts against the request's retry limit
    /// (``SimpleNetworking/Configuration/maximumRetries``), goes through ``SimpleNetworking/execute(request:)`` again,
    /// and the handlers of the attempt it replaces do not run. The first interceptor, in order, that asks for one
    /// decides, and the attempt's history names it (``RequestAttempt/retriedBy``). No retry is asked for after the
    /// request was cancelled, nor once a response stream has handed part of a body to its reader.
    /// - Parameters:
    ///   - outcome: The attempt's response (any status) or failure.
    ///   - context: The request's identity and the attempt's number.
    /// - Returns: Whether, and when, to run the request again.
    func retry(after outcome: Result<SimpleResponse, SimpleNetworkingError>, context: InterceptorContext) async
        -> InterceptorRetry
}

extension RequestInterceptor {
    /// Sends the request on unchanged.
    /// - Parameters:
    ///   - request: The attempt's request.
    ///   - context: The request's identity and the attempt's number.
    ///   - next: The rest of the pipeline.
    /// - Returns: `next`'s response.
    public func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        try await next(request)
    }

    /// Asks for no retry.
    /// - Parameters:
    ///   - outcome: The attempt's outcome.
    ///   - context: The request's identity and the attempt's number.
    /// - Returns: ``InterceptorRetry/doNotRetry``.
    public func retry(after outcome: Result<SimpleResponse, SimpleNetworkingError>, context: InterceptorContext) async
        -> InterceptorRetry
    {
        .doNotRetry
    }
}

/// What an interceptor knows of the attempt it is part of.
public struct InterceptorContext: Sendable {
    /// The client that runs the request.
    public let client: SimpleNetworking
    /// The same for every attempt of one request, and the ``NetworkEvent/requestID`` of its events.
    public let requestID: UUID
    /// The number of this attempt in the execution, from 1.
    public let attempt: Int
}

/// The rest of an attempt's pipeline after an interceptor: the interceptors after it, then the redirects and the
/// transport. Call it as a function: `try await next(request)`.
public struct InterceptorNext: Sendable {
    private let proceed: @Sendable (HTTPRequest) async throws(SimpleNetworkingError) -> SimpleResponse

    init(_ proceed: @escaping @Sendable (HTTPRequest) async throws(SimpleNetworkingError) -> SimpleResponse) {
        self.proceed = proceed
    }

    /// Sends `request` through the rest of the pipeline.
    /// - Parameter request: The request to send, changed or not.
    /// - Returns: The response, after its redirects.
    /// - Throws: ``SimpleNetworkingError``: why no response came, or why `request` cannot be sent.
    public func callAsFunction(_ request: HTTPRequest) async throws(SimpleNetworkingError) -> SimpleResponse {
        try await proceed(request)
    }
}

/// An interceptor's answer to ``RequestInterceptor/retry(after:context:)``.
public enum InterceptorRetry: Sendable, Hashable {
    /// Let the request's handlers and retry policy decide.
    case doNotRetry
    /// Run the request again now.
    case retry
    /// Run the request again after `seconds`, on the client's clock; the request's deadline still applies.
    case retryAfter(TimeInterval)
}
