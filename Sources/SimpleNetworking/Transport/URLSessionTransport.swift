import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with data tasks on one long-lived URLSession per client.
///
/// The library's own session gets a delegate of the library's (``SessionDelegate``) that collects bodies, never
/// answers authentication challenges with a credential (so a 401 reaches the handlers), never follows redirects (the
/// client does) and cancels a body past the size limit as it arrives. Each request has its own deadline timer, because
/// URLSession's request timeout is an idle timer and, on Linux, sub-second values become about 1 ms.
final class URLSessionTransport: HTTPTransport {
    let session: URLSession
    private let delegate: SessionDelegate
    private let ownsSession: Bool

    /// The library's own session: ephemeral, no cache, no cookie or credential storage.
    init(configuration: SimpleNetworking.Configuration) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.urlCredentialStorage = nil
        sessionConfiguration.timeoutIntervalForRequest = Self.sessionTimeout(for: configuration.timeout)
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
    /// fire after about 1 ms; rounding up to whole seconds keeps it from firing before the library's timer.
    static func sessionTimeout(for seconds: TimeInterval) -> TimeInterval {
        #if canImport(FoundationNetworking)
            return max(1, seconds.rounded(.up))
        #else
            return seconds
        #endif
    }

    func send(_ request: URLRequest, options: TransportOptions) async throws(SimpleNetworkingError) -> SimpleResponse {
        let pending = PendingTask(maximumBodySize: options.maximumResponseBodySize)
        pending.startDeadline(after: options.timeout) { [weak pending, delegate] in
            guard let pending else { return }
            delegate.stop(pending, with: .transportFailed(URLError(.timedOut)))
        }
        // On Linux creating and resuming a task wait for the session's work queue, which libcurl can keep busy for
        // seconds (see "URLSession on Linux" in the documentation): never on the caller's thread, which may be one of
        // the few of Swift's cooperative pool.
        delegate.control.async { [self] in
            delegate.start(pending) { () -> URLSessionDataTask in
                guard !ownsSession else { return session.dataTask(with: request) }
                return session.dataTask(with: request) { [delegate] data, response, error in
                    delegate.complete(pending, request: request, response: response, data: data ?? Data(), error: error)
                }
            }
        }
        let result = await withTaskCancellationHandler {
            await pending.outcome()
        } onCancel: { [delegate] in
            delegate.stop(pending, with: .cancelled)
        }
        return try result.get()
    }

    func close() {
        guard let tasks = delegate.close() else { return }
        // Callers in flight have been resumed with `cancelled`; what remains waits for the session's work queue on
        // Linux, so it runs on another thread.
        if ownsSession {
            let session = UncheckedSession(session: session)
            delegate.control.async { session.session.invalidateAndCancel() }
        } else {
            delegate.cancelInBackground(tasks)
        }
    }

    /// A client released without `close()` still invalidates its own session: `URLSession` keeps its delegate, its
    /// connections and its descriptors until it is invalidated.
    deinit {
        close()
    }
}

/// A session handed to another thread to be invalidated.
///
/// `@unchecked Sendable`: `URLSession` is thread-safe, but corelibs does not annotate it `Sendable`.
private struct UncheckedSession: @unchecked Sendable {
    let session: URLSession
}
