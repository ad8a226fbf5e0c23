import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with data tasks on one long-lived URLSession per client.
///
/// The library's own session gets a delegate of the library's (``SessionDelegate``) that collects bodies, never
/// answers authentication challenges with a credential (so a 401 reaches the handlers), never follows redirects (the
/// client does) and cancels a body past the size limit as it arrives. Each attempt has its own deadline (kept with
/// every other in ``DeadlineTimers``), because URLSession's request timeout is an idle timer and, on Linux, sub-second
/// values become about 1 ms.
///
/// The session lives in a ``SessionSlot``: the library's own is replaced by a new one after a response with invalid
/// framing (its connection must not carry another request), and `close()` lets it go, so that it is deallocated and
/// libcurl closes its connections while the client may still be held.
package final class URLSessionTransport: HTTPTransport {
    private let sessions: SessionSlot
    private let delegate: SessionDelegate
    private let ownsSession: Bool

    /// The session now: `nil` before the first request of the library's own session and after `close()` (for tests,
    /// which watch it being released; waits for ``SessionDelegate/starts``).
    package var session: URLSession? { sessions.peek }

    /// The library's own session: ephemeral, no cache, no cookie or credential storage.
    /// - Parameters:
    ///   - configuration: The client's configuration.
    ///   - taskStarts: Where its starts and transfers are counted: the process's (``TaskStarts/shared``), or a test's.
    package init(configuration: SimpleNetworking.Configuration, taskStarts: TaskStarts = .shared) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.urlCredentialStorage = nil
        sessionConfiguration.timeoutIntervalForRequest = Self.sessionTimeout(
            for: configuration.attemptTimeout(requested: nil))
        sessionConfiguration.httpMaximumConnectionsPerHost = max(1, configuration.maximumConnectionsPerHost)
        let tls = SessionTLS(policy: configuration.tls)
        #if !canImport(FoundationNetworking) || APPLE_BRANCH_CHECK
            tls.configure(sessionConfiguration)
        #endif
        // Made at the first start, and again after invalid framing retired one.
        sessions = SessionSlot(configuration: sessionConfiguration, delegateQueue: Self.makeDelegateQueue())
        delegate = SessionDelegate(taskStarts: taskStarts, sessions: sessions, tls: tls)
        ownsSession = true
    }

    /// The queue the session calls its delegate on: serial, and on Linux bounded (see ``BoundedDelegateQueue``).
    private static func makeDelegateQueue() -> OperationQueue {
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            let queue = BoundedDelegateQueue()
        #else
            let queue = OperationQueue()
        #endif
        queue.name = "SimpleNetworking.delegate"
        queue.maxConcurrentOperationCount = 1
        return queue
    }

    /// A session the caller made, used as it is.
    /// - Parameters:
    ///   - session: The caller's session.
    ///   - taskStarts: Where its starts and transfers are counted: the process's (``TaskStarts/shared``), or a test's.
    package init(session: URLSession, taskStarts: TaskStarts = .shared) {
        delegate = SessionDelegate(taskStarts: taskStarts)
        sessions = SessionSlot(session: session)
        ownsSession = false
    }

    /// The value for `URLRequest.timeoutInterval`: a backstop behind the library's own per-attempt timer.
    ///
    /// On Linux, FoundationNetworking turns a fractional timeout into `Int(seconds) * 1000 - 1` ms, so 0.5 s would
    /// fire after about 1 ms; rounding up to whole seconds keeps it from firing before the library's timer. The same
    /// conversion traps from about 1e16 s, so the value is always finite and at most `Configuration.maximumTimeout`;
    /// zero, negative values and NaN give the default of 60 s ("URLSession on Linux" in the documentation).
    static func sessionTimeout(for seconds: TimeInterval) -> TimeInterval {
        let usable = TransportOptions.usableTimeout(seconds) ?? SimpleNetworking.Configuration.defaultTimeout
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            return max(1, usable.rounded(.up))
        #else
            return usable
        #endif
    }

    /// Everything on the library's own session; on a session the caller made, whose delegate is not the library's,
    /// no streaming, but a cancelled transfer still stops its task.
    package var capabilities: TransportCapabilities {
        ownsSession ? [.streaming, .transferCancellation] : .transferCancellation
    }

    /// On Apple platforms, with the library's own session, every part of a ``TLSPolicy`` but a client identity from
    /// PEM, through the session delegate's TLS challenges and the session's minimum TLS version; on Linux, and on a
    /// session the caller made, none (see ``SessionTLS``).
    package var tlsEnforcement: TLSRequirements { ownsSession ? SessionTLS.enforcement : [] }

    /// What the client's refusal of `missing` TLS parts adds for this transport, if anything.
    func tlsRefusalHint(for missing: TLSRequirements) -> String? {
        SessionTLS.refusalHint(for: missing, ownsSession: ownsSession)
    }

    /// Streams in both directions on the library's own session: the response body goes to `transfer` from the
    /// delegate as it arrives (URLSession cannot pause a transfer, so a reader that falls too far behind fails it),
    /// and a body file is sent with an upload task, which reads it from disk as it goes. On Linux that is what
    /// streams: FoundationNetworking sends an empty body for `httpBodyStream` (see "URLSession on Linux" in the
    /// documentation). A session the caller made collects the response with a completion handler, then hands it over.
    package func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        if let reason = Self.cannotSend(request) { throw .unsupportedByTransport(reason: reason) }
        if let reason = delegate.tls.refusal(of: options.tls, for: request, ownsSession: ownsSession) {
            throw .unsupportedByTransport(reason: reason)
        }
        guard ownsSession else {
            guard request.bodyFile == nil else {
                throw .unsupportedByTransport(reason: "a URLSession the caller made cannot stream a body file")
            }
            let whole = try await run(request, options: options, transfer: nil, cancelledBy: transfer)
            return try await transfer.deliver(whole: whole)
        }
        return try await run(request, options: options, transfer: transfer, cancelledBy: transfer)
    }

    /// Why URLSession cannot send `request`, or `nil`: a body on GET or HEAD (URLSession drops it, or fails the
    /// task), and on Linux a host libcurl rewrites (see "URLSession on Linux" in the documentation). Other
    /// transports send both.
    static func cannotSend(_ request: HTTPRequest) -> String? {
        if request.method == .get || request.method == .head,
            request.bodyFile != nil || request.body.map({ !$0.isEmpty }) == true
        {
            return "URLSession cannot send a body on \(request.method.rawValue); put the data in the query, use POST, "
                + "or use the AsyncHTTPClient engine"
        }
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            if let host = request.url.host, !isPlainHost(host), let reason = Origin.unsupportedHostReason(host) {
                return reason + ", or use the AsyncHTTPClient engine"
            }
        #endif
        return nil
    }

    /// Whether `host` is one libcurl certainly keeps as it is, decided in one pass over its bytes: a name whose last
    /// label does not start with a digit, or four decimal numbers 0-255 without leading zeros. Every other host,
    /// plain or not, goes through `Origin.unsupportedHostReason(_:)`, which decides; this only spares the common
    /// hosts its splitting into labels, which cost more than the rest of the transport's checks together.
    package static func isPlainHost(_ host: String) -> Bool {
        var labels = 0
        var first: UInt8?  // the first byte of the current label
        var previousFirst: UInt8?
        var dottedDecimal = true  // so far: labels of one to three digits, at most 255, without a leading zero
        var digits = 0
        var value = 0
        for byte in host.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                if digits == 0 { dottedDecimal = false }
                labels += 1
                previousFirst = first
                first = nil
                digits = 0
                value = 0
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if first == nil { first = byte }
                if digits == 1, value == 0 { dottedDecimal = false }
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                if digits > 3 || value > 255 { dottedDecimal = false }
            case UInt8(ascii: ":"), UInt8(ascii: "["):
                return false
            default:
                if first == nil { first = byte }
                dottedDecimal = false
            }
        }
        if dottedDecimal, labels == 3, digits > 0 { return true }
        // The last label, or the one before a final dot: a number (decimal or 0x) starts with a digit.
        let last = first == nil && labels > 0 ? previousFirst : first
        return !(last.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false)
    }

    /// Runs one data or upload task; the response goes to `transfer`, or into the result's body without one.
    /// Cancelling `canceller` (or the calling task) stops it.
    private func run(
        _ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer?, cancelledBy canceller: HTTPTransfer
    ) async throws(SimpleNetworkingError) -> SimpleResponse {
        // A task cancelled before it calls the transport sends nothing: started on the caller's thread, the task would
        // be resumed, and could write its request, before the cancellation handler below is in place.
        if Task.isCancelled { throw .cancelled }
        let bodyFile = request.bodyFile
        let request = Self.urlRequest(for: request, timeout: options.timeout)
        let pending = PendingTask(maximumBodySize: options.maximumResponseBodySize, transfer: transfer)
        // A strong reference: the deadline is cancelled, and this handler released, when the attempt ends, so it keeps
        // the attempt no longer than that (a weak one cost a side table per attempt).
        pending.startDeadline(after: options.timeout) { [pending, delegate] in
            delegate.stop(pending, with: .transportFailed(TransportFailure(URLError(.timedOut))))
        }
        // On Linux creating and resuming a task wait for the session's work queue, which libcurl can keep busy for
        // seconds (see "URLSession on Linux" in the documentation): on the caller's thread, which may be one of the
        // few of Swift's cooperative pool, only while none of the library's transfers is under way (`TaskStarts`).
        let onCallersThread = delegate.taskStarts.begin()
        let start: @Sendable () -> Void = { [self] in
            delegate.start(pending, completionKey: ownsSession ? nil : pending) { () -> URLSessionDataTask? in
                // On `starts`, where the slot is read without a lock.
                guard let session = sessions.current(delegate: delegate) else { return nil }
                if ownsSession, let bodyFile { return session.uploadTask(with: request, fromFile: bodyFile) }
                guard !ownsSession else { return session.dataTask(with: request) }
                return session.dataTask(with: request) { [delegate] data, response, error in
                    delegate.complete(pending, request: request, response: response, data: data ?? Data(), error: error)
                }
            }
        }
        if onCallersThread {
            SessionDelegate.starts.sync(execute: start)
        } else {
            SessionDelegate.starts.async(execute: start)
        }
        let result = await canceller.withCancellationHandler {
            await pending.outcome()
        } onCancel: { [delegate] in
            delegate.stop(pending, with: .cancelled)
        }
        return try result.get()
    }

    /// The `URLRequest` for `request`: repeated header fields joined with ", " (URLSession keeps one value per name),
    /// and URLSession's own timeout set as a backstop behind the library's timer.
    package static func urlRequest(for request: HTTPRequest, timeout: TimeInterval) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        // A new URLRequest is a GET already, and setting the method costs as much as a header conversion on Linux.
        if request.method != .get { urlRequest.httpMethod = request.method.rawValue }
        if let body = request.body { urlRequest.httpBody = body }
        if !request.headers.isEmpty { urlRequest.allHTTPHeaderFields = request.headers.dictionary }
        urlRequest.timeoutInterval = sessionTimeout(for: timeout)
        return urlRequest
    }

    /// Ends every attempt in flight with `cancelled`, cancels their tasks, invalidates the library's own session and
    /// lets go of the session, so that it is deallocated and libcurl closes its connections and descriptors
    /// (FoundationNetworking frees them only then), while the client may still be held.
    package func close() {
        guard let tasks = delegate.close() else { return }
        // Callers in flight have been resumed with `cancelled`; what remains waits for the session's work queue on
        // Linux, so it runs on another thread. Tasks of a retired session too: it is no longer the slot's.
        delegate.cancelInBackground(tasks)
        let sessions = sessions
        let ownsSession = ownsSession
        let control = delegate.control
        // Behind every start already queued (which then sees the session closed), on the client's own queue.
        SessionDelegate.starts.async {
            guard let session = sessions.close(), ownsSession else { return }
            let unchecked = UncheckedSession(session: session)
            control.async { unchecked.session.invalidateAndCancel() }
        }
    }

    /// A client released without `close()` still invalidates its own session: `URLSession` keeps its delegate, its
    /// connections and its descriptors until it is invalidated.
    deinit {
        close()
    }
}

#if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
    /// A delegate queue that holds libcurl back while it is too far ahead.
    ///
    /// FoundationNetworking hands every chunk of a body to the delegate queue as an operation, from the work queue
    /// libcurl runs on, without waiting. libcurl decodes faster than the queue runs operations, and once the library
    /// has stopped an attempt it cannot stop libcurl until its current pass ends (`URLSessionTask.cancel()` waits for
    /// the work queue; a compression bomb decodes in one pass, and a body that keeps arriving faster than libcurl reads
    /// it never lets the pass end): the queued chunks were the memory a size limit did not bound. Here the work queue
    /// waits while `limit` operations are queued, so at most `limit` chunks (16 KiB each) wait in memory.
    ///
    /// The wait is bounded by `patience`: a delegate callback that itself waited for the work queue would otherwise
    /// deadlock with it; the library's never do. See "URLSession on Linux" in the documentation.
    ///
    /// Its operations run on a serial dispatch queue whose threads come from the user-initiated pool. By default an
    /// operation queue's threads come from the default pool, which on Linux also runs Swift's tasks of default
    /// priority: with every thread of that pool waiting for the work queue (a plain URLSession's `data(for:)` waits
    /// there before it returns), the work queue waited here, the operations waited for a thread, and every task of the
    /// process stood still, about 1 s at a time (`transport-probe held-pool`). A queue with a thread of its own
    /// (overcommit) also ended the stall, but took 1.17 times as long as this one for 8 requests at once; "URLSession
    /// on Linux" in the documentation gives both against the default.
    final class BoundedDelegateQueue: OperationQueue, @unchecked Sendable {
        // @unchecked Sendable: OperationQueue is thread-safe, and `gate` is.
        private let gate: Gate
        /// Where the operations run; held here, since the operation queue does not keep it (`unowned(unsafe)`).
        private let runQueue = DispatchQueue(
            label: "SimpleNetworking.delegate", target: .global(qos: .userInitiated))

        init(limit: Int = 64, patience: TimeInterval = 0.1) {
            gate = Gate(limit: limit, patience: patience)
            super.init()
            underlyingQueue = runQueue
        }

        override func addOperation(_ block: @escaping @Sendable () -> Void) {
            let gate = gate
            gate.enter()
            super.addOperation {
                block()
                gate.leave()
            }
        }

        /// Counts the operations queued and holds back who adds one past the limit, for `patience` at most.
        private final class Gate: @unchecked Sendable {
            // @unchecked Sendable: `queued` is only touched with `condition` locked. Not a semaphore: libdispatch
            // traps when one is released below its initial value, as it would be with operations never run.
            private let condition = NSCondition()
            private var queued = 0
            private let limit: Int
            private let patience: TimeInterval

            init(limit: Int, patience: TimeInterval) {
                self.limit = limit
                self.patience = patience
            }

            /// How many callers wait in ``enter()``; `leave()` signals only when one does.
            private var waiting = 0

            func enter() {
                condition.lock()
                if queued >= limit {
                    // The clock is read only when the queue is full: this runs for every chunk of every body.
                    let deadline = Date(timeIntervalSinceNow: patience)
                    waiting += 1
                    while queued >= limit, condition.wait(until: deadline) {}
                    waiting -= 1
                }
                queued += 1
                condition.unlock()
            }

            func leave() {
                condition.lock()
                queued -= 1
                if waiting > 0 { condition.signal() }
                condition.unlock()
            }
        }
    }
#endif
