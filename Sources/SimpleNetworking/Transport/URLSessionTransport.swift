import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with data tasks on one long-lived URLSession per client.
///
/// The library's own session gets a delegate of the library's (``SessionDelegate``) that collects bodies, never
/// answers authentication challenges with a credential (so a 401 reaches the handlers), never follows redirects (the
/// client does) and cancels a body past the size limit as it arrives. Each request has its own deadline timer, because URLSession's request timeout
/// is an idle timer and, on Linux, sub-second values become about 1 ms.
package final class URLSessionTransport: HTTPTransport {
    let session: URLSession
    private let delegate: SessionDelegate
    private let ownsSession: Bool

    /// The library's own session: ephemeral, no cache, no cookie or credential storage.
    package init(configuration: SimpleNetworking.Configuration) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.urlCredentialStorage = nil
        sessionConfiguration.timeoutIntervalForRequest = Self.sessionTimeout(
            for: configuration.attemptTimeout(requested: nil))
        delegate = SessionDelegate()
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
        ownsSession = true
    }

    /// A session the caller made, used as it is.
    init(session: URLSession) {
        delegate = SessionDelegate()
        self.session = session
        ownsSession = false
    }

    /// The value for `URLRequest.timeoutInterval`: a backstop behind the library's own per-attempt timer.
    ///
    /// On Linux, FoundationNetworking turns a fractional timeout into `Int(seconds) * 1000 - 1` ms, so 0.5 s would
    /// fire after about 1 ms; rounding up to whole seconds keeps it from firing before the library's timer. The same
    /// conversion traps from about 1e16 s, so the value is always finite and at most `Configuration.maximumTimeout`;
    /// zero, negative values and NaN give the default of 60 s ("URLSession on Linux" in the documentation).
    static func sessionTimeout(for seconds: TimeInterval) -> TimeInterval {
        typealias Configuration = SimpleNetworking.Configuration
        let usable = Configuration.usableTimeout(seconds) ?? Configuration.defaultTimeout
        #if canImport(FoundationNetworking)
            return max(1, usable.rounded(.up))
        #else
            return usable
        #endif
    }

    package func send(_ request: HTTPRequest, options: TransportOptions) async throws(SimpleNetworkingError)
        -> SimpleResponse
    {
        let request = Self.urlRequest(for: request, timeout: options.timeout)
        let handle = TaskHandle()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let pending = PendingTask(continuation: continuation, maximumBodySize: options.maximumResponseBodySize)
                guard let task = makeTask(for: request, pending: pending) else {
                    pending.finish(with: .failure(.transportFailed(TransportFailure(URLError(.cancelled)))))
                    return
                }
                let deadline = DispatchWorkItem { [delegate] in
                    delegate.fail(task, with: .transportFailed(TransportFailure(URLError(.timedOut))))
                }
                pending.arm(deadline, after: options.timeout)
                task.resume()
                if handle.attach(task) { delegate.fail(task, with: .cancelled) }
            }
        } onCancel: {
            if let task = handle.cancel() { delegate.fail(task, with: .cancelled) }
        }
        return try result.get()
    }

    /// The `URLRequest` for `request`: repeated header fields joined with ", " (URLSession keeps one value per name),
    /// and URLSession's own timeout set as a backstop behind the library's timer.
    package static func urlRequest(for request: HTTPRequest, timeout: TimeInterval) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.httpBody = request.body
        urlRequest.allHTTPHeaderFields = request.headers.dictionary
        urlRequest.timeoutInterval = sessionTimeout(for: timeout)
        return urlRequest
    }

    /// Creates and registers the task, or returns `nil` when the client is closed.
    private func makeTask(for request: URLRequest, pending: PendingTask) -> URLSessionDataTask? {
        delegate.register(pending) { () -> URLSessionDataTask in
            guard !ownsSession else { return session.dataTask(with: request) }
            return session.dataTask(with: request) { [delegate] data, response, error in
                delegate.complete(pending, response: response, data: data ?? Data(), error: error)
            }
        }
    }

    package func close() {
        let tasks = delegate.close()
        if ownsSession {
            session.invalidateAndCancel()
        } else {
            for task in tasks { task.cancel() }
        }
    }
}

/// The URLSession task of one `send`, shared with the cancellation handler, which may run before the task exists.
private final class TaskHandle: Sendable {
    private let state = Locked<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

    /// Stores the task; returns `true` when cancellation already happened, so the caller cancels it now.
    func attach(_ task: URLSessionDataTask) -> Bool {
        state.withLock { state in
            state.task = task
            return state.cancelled
        }
    }

    /// Marks the send cancelled and returns the task to cancel, if it exists yet.
    func cancel() -> URLSessionDataTask? {
        state.withLock { state in
            state.cancelled = true
            return state.task
        }
    }
}
