import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Tasks handed to another thread to be cancelled.
///
/// `@unchecked Sendable`: `URLSessionTask.cancel()` may be called from any thread, but corelibs does not annotate the
/// class `Sendable`.
private struct UncheckedTasks: @unchecked Sendable {
    let tasks: [URLSessionDataTask]
}

/// The session-level delegate of the library's own sessions (per-task delegates are never asked about redirects on
/// Linux). It holds only the attempts in flight, keyed by task, and the transport's ``SessionSlot``, never the client,
/// so the client can be released.
///
/// One delegate serves every session a transport makes (a retired one finishing its tasks beside its replacement), so
/// attempts are keyed by the identity of their task: a `taskIdentifier` is unique within one session only.
package final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `registry`, behind its lock.
    private struct Registry {
        /// By the task's `ObjectIdentifier`: an entry goes when its task completes, its attempt is stopped or the
        /// delegate is closed, and the session holds its task until then, so no other task can have that identity.
        var pending: [ObjectIdentifier: PendingTask] = [:]
        var closed = false
    }

    private let registry = Locked(Registry())
    /// Where this delegate's starts and transfers are counted, to decide where the next start runs.
    package let taskStarts: TaskStarts
    /// Where cancelling tasks and invalidating the session run: on Linux each of those waits for the session's work
    /// queue while libcurl is busy, and a cancel can wait as long as a server keeps writing. A serial queue of the
    /// client's own, so that such a wait holds up no other client; a global queue has as many threads as cores, and
    /// blocking them would hold up every client in the process.
    let control = DispatchQueue(label: "SimpleNetworking.session-control")

    /// Where tasks are created and resumed, for every client of the process: on Linux each of those waits for the
    /// work queue that all sessions share, so they take turns anyway, and one queue blocks at most one thread. A start
    /// runs on the queue's own thread (`async`), or on the caller's (`sync`) when ``TaskStarts`` finds none of the
    /// library's transfers under way. With a queue per client, a few hundred clients starting requests at once (the
    /// test suite's) blocked a thread each, libdispatch's pool ran out, and the work queue itself got no thread to run
    /// on: every request of the process hung.
    static let starts = DispatchQueue(label: "SimpleNetworking.task-start")

    /// The transport's sessions, retired here after a response with invalid framing; `nil` for a delegate of no
    /// transport (tests).
    let sessions: SessionSlot?
    /// The TLS policy the session's connections are held to, and how TLS challenges are answered with it.
    let tls: SessionTLS

    /// A delegate that counts its starts and transfers in `taskStarts`: the process's, or a test's own.
    package convenience init(taskStarts: TaskStarts = .shared) {
        self.init(taskStarts: taskStarts, sessions: nil)
    }

    /// A delegate of a transport whose sessions are in `sessions`, holding them to `tls`.
    init(taskStarts: TaskStarts, sessions: SessionSlot?, tls: SessionTLS = SessionTLS()) {
        self.taskStarts = taskStarts
        self.sessions = sessions
        self.tls = tls
    }

    /// Creates the attempt's task with `makeTask`, registers it and starts it; ends the attempt with a transport
    /// failure once the session is closed.
    ///
    /// Call it on ``starts``, after ``TaskStarts/begin()`` of ``taskStarts``, whose
    /// ``TaskStarts/end(startedTransfer:)`` it calls: on Linux creating and resuming a task wait for the session's work
    /// queue, which libcurl can keep busy for seconds, so it runs on the caller's thread only when ``TaskStarts`` says
    /// that none of the library's transfers is under way (`starts.sync`), and otherwise on the queue's own thread. For
    /// the same reason the registry's lock is never held while the task is made or resumed: the delegate callbacks,
    /// the deadlines of every client and `close()` take that lock, and would wait for libcurl behind it. The task is
    /// made outside the lock and registered after; creating it cannot race with the invalidation of the session, which
    /// is queued on ``starts``, after this (see ``SessionSlot``).
    /// - Parameters:
    ///   - pending: The attempt.
    ///   - completionKey: What the task's completion is known by in ``taskStarts``: `nil` for the task itself, whose
    ///     `didCompleteWithError` comes to this delegate; on a session the caller made, the object its completion
    ///     handler passes to ``complete(_:request:response:data:error:)``, `pending`.
    ///   - makeTask: Creates the task; `nil` when the transport has no session any more (closed).
    package func start(
        _ pending: PendingTask, completionKey: AnyObject? = nil, makeTask: () -> URLSessionDataTask?
    ) {
        guard !registry.withLock({ $0.closed }), !pending.hasEnded, let task = makeTask() else {
            taskStarts.end()
            pending.finish(with: .failure(.transportFailed(TransportFailure(URLError(.cancelled)))))
            return
        }
        // Before anything can resume it: its completion may come at once.
        taskStarts.end(startedTransfer: completionKey ?? task)
        let registered = registry.withLock { registry -> Bool in
            guard !registry.closed else { return false }
            registry.pending[ObjectIdentifier(task)] = pending
            return true
        }
        guard registered else {
            // Closed while the task was being made: it never runs.
            pending.finish(with: .failure(.transportFailed(TransportFailure(URLError(.cancelled)))))
            task.cancel()
            return
        }
        guard pending.attach(task) else {
            // Ended (timed out or cancelled) while the task was being made: it never runs.
            forget(task, of: pending)
            task.cancel()
            return
        }
        task.resume()
    }

    /// Marks the session closed and ends every attempt in flight with `cancelled`.
    /// - Returns: The tasks to cancel, or `nil` when the session was already closed.
    package func close() -> [URLSessionDataTask]? {
        let attempts = registry.withLock { registry -> [PendingTask]? in
            guard !registry.closed else { return nil }
            registry.closed = true
            defer { registry.pending = [:] }
            return Array(registry.pending.values)
        }
        return attempts?.compactMap { $0.finish(with: .failure(.cancelled)).task }
    }

    /// Ends an attempt early with `error` (timeout, cancellation, size limit): the caller is resumed at once, and the
    /// task is cancelled afterwards on another thread.
    func stop(_ pending: PendingTask, with error: SimpleNetworkingError) {
        let (ended, task) = pending.finish(with: .failure(error))
        guard ended, let task else { return }
        forget(task, of: pending)
        cancelInBackground([task])
    }

    /// Cancels `tasks` on ``control``: `URLSessionTask.cancel()` waits for the session's work queue on Linux, and must
    /// never hold up the caller nor a thread of Swift's cooperative pool.
    func cancelInBackground(_ tasks: [URLSessionDataTask]) {
        guard !tasks.isEmpty else { return }
        let tasks = UncheckedTasks(tasks: tasks)
        control.async {
            for task in tasks.tasks { task.cancel() }
        }
    }

    /// Ends an attempt of a caller-supplied session, from its completion handler.
    func complete(
        _ pending: PendingTask, request: URLRequest, response: URLResponse?, data: Data, error: (any Error)?
    ) {
        taskStarts.completed(pending)
        pending.response = response as? HTTPURLResponse
        pending.body = data
        let (_, task) = pending.finish(with: Self.result(of: pending, request: request, error: error))
        if let task { forget(task, of: pending) }
    }

    private func pending(for task: URLSessionTask) -> PendingTask? {
        registry.withLock { $0.pending[ObjectIdentifier(task)] }
    }

    private func forget(_ task: URLSessionTask, of pending: PendingTask) {
        registry.withLock { registry in
            let key = ObjectIdentifier(task)
            if registry.pending[key] === pending { registry.pending[key] = nil }
        }
    }

    // MARK: URLSessionDataDelegate

    package func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let pending = pending(for: dataTask) else { return completionHandler(.cancel) }
        pending.response = response as? HTTPURLResponse
        if let response = pending.response {
            let head = pending.head(of: response)
            if let problem = Malformed.framing(of: head) {
                // On Linux libcurl reads such a body by one of the lengths: it waits for bytes that never come, or
                // takes the response as complete and keeps the connection for the next request, which the server
                // may read as the rest of this body. RFC 9112, section 6.3: the connection must be closed. Retired
                // before the attempt ends, so that its retry comes behind the replacement (see `SessionSlot`).
                sessions?.retire(session)
                stop(pending, with: .transportFailed(TransportFailure(problem.error(for: dataTask.originalRequest))))
                return completionHandler(.cancel)
            }
            if Self.declaredLength(of: response, head: head, for: dataTask) > pending.maximumBodySize {
                // Linux ignores `.cancel` here and downloads the body anyway, so the task is cancelled directly (see
                // "URLSession on Linux" in the documentation).
                stop(pending, with: .responseTooLarge(limit: pending.maximumBodySize))
                return completionHandler(.cancel)
            }
        }
        do throws(SimpleNetworkingError) {
            try pending.deliverHead()
        } catch {
            stop(pending, with: error)
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let pending = pending(for: dataTask) else { return }
        // Counted on decoded bytes: both platforms decompress before this call (on Linux every encoding libcurl
        // knows, with no limit of its own; see "URLSession on Linux" in the documentation), so the caller of a
        // compression bomb gets its error within one chunk of the limit; libcurl stops when its current pass ends.
        guard data.count <= pending.maximumBodySize - pending.received else {
            return stop(pending, with: .responseTooLarge(limit: pending.maximumBodySize))
        }
        pending.received += data.count
        guard let transfer = pending.transfer, pending.headDelivered else { return pending.body.append(data) }
        // Written as it arrives (to a file, a stream's buffer): FoundationNetworking cannot pause a transfer, so
        // bounded memory means nothing piles up here (<doc:LargeTransfers>).
        do throws(SimpleNetworkingError) {
            try transfer.receive(data)
        } catch {
            stop(pending, with: error)
        }
    }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        guard let pending = pending(for: task), !pending.hasEnded else { return }
        pending.transfer?.didSend(totalBytesSent, of: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil)
    }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Never follow here: the 3xx comes back as the response and the client follows it by its own rules, the same
        // on every platform. On Linux URLSession would forward credentials and drop 307 bodies: see
        // "URLSession on Linux" in the documentation.
        completionHandler(nil)
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // First: the caller resumed below may start its next request at once, on its own thread if nothing is left.
        taskStarts.completed(task)
        guard let pending = registry.withLock({ $0.pending.removeValue(forKey: ObjectIdentifier(task)) }) else {
            return
        }
        // On Linux a 3xx without a usable Location completes without `didReceive response`; the task still has it.
        if pending.response == nil { pending.response = task.response as? HTTPURLResponse }
        if let challenged = pending.declinedChallenge, (error as? URLError)?.code == .cancelled {
            // The challenge was declined after the whole response arrived: the 401 is the answer.
            pending.response = challenged
            pending.finish(with: Self.result(of: pending, request: task.originalRequest, error: nil))
            return
        }
        pending.finish(with: Self.result(of: pending, request: task.originalRequest, error: error))
    }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Never answer challenges with a credential: a 401 must reach the library's handlers, and on Linux answering a
        // Digest or unknown scheme with a credential reaches a fatalError in FoundationNetworking: see
        // "URLSession on Linux" in the documentation.
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            // On Linux only HTTP challenges (Basic, Digest) get here, after the whole 401 has arrived. Default handling
            // leaves the task hanging forever and `.useCredential` with no credential traps, so the protection space
            // is rejected, which cancels the task; its completion then delivers the 401 as the response.
            // (Server-trust challenges do not exist there.)
            guard let pending = pending(for: task),
                let response = challenge.failureResponse as? HTTPURLResponse
            else { return completionHandler(.performDefaultHandling, nil) }
            pending.declinedChallenge = response
            completionHandler(.rejectProtectionSpace, nil)
        #else
            // Server trust and client certificates by the TLS policy (`SessionTLS`); anything else by default
            // handling, which answers no HTTP challenge with a credential, as there is no credential storage. A failed
            // check ends the attempt with its failure first: the cancelled challenge would otherwise read as
            // `cancelled`.
            let answer = tls.answer(challenge)
            if let failure = answer.failure, let pending = pending(for: task) {
                stop(pending, with: .transportFailed(TransportFailure(failure.urlError(for: task.originalRequest))))
            }
            completionHandler(answer.disposition, answer.credential)
        #endif
    }

    /// The body length the response declares, when that is the length that will be counted: not for HEAD, not
    /// for statuses without a body, and not when a content coding makes the decoded length unknown.
    private static func declaredLength(of response: HTTPURLResponse, head: ResponseHead, for task: URLSessionTask)
        -> Int64
    {
        if let coding = head.contentEncoding, !coding.isEmpty, !coding.equalsIgnoringASCIICase("identity") { return 0 }
        guard task.originalRequest?.httpMethod != "HEAD", response.statusCode != 204, response.statusCode != 304
        else { return 0 }
        return response.expectedContentLength
    }

    private static func result(of pending: PendingTask, request: URLRequest?, error: (any Error)?)
        -> PendingTask.Outcome
    {
        if let error {
            var urlError = error as? URLError ?? URLError(.unknown)
            #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
                urlError = corrected(urlError, afterResponse: pending.response != nil, request: request)
            #endif
            return .failure(urlError.code == .cancelled ? .cancelled : .transportFailed(TransportFailure(urlError)))
        }
        guard let response = pending.response else {
            return .failure(.transportFailed(TransportFailure(URLError(.badServerResponse))))
        }
        if pending.transfer != nil {
            // A declined challenge's 401 and a 3xx without a usable Location never went through `didReceive
            // response`: their head, and the body kept meanwhile, go to the transfer now.
            do throws(SimpleNetworkingError) {
                try pending.deliverHead()
            } catch {
                return .failure(error)
            }
            return .success(
                SimpleResponse(
                    statusCode: response.statusCode, headers: pending.headers(of: response), url: response.url))
        }
        return .success(
            SimpleResponse(
                statusCode: response.statusCode, headers: pending.headers(of: response), body: pending.body,
                url: response.url))
    }
}

#if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
    /// libcurl's failures as Apple platforms report them, where FoundationNetworking's codes mislead (see "URLSession
    /// on Linux" in the documentation).
    private func corrected(_ error: URLError, afterResponse: Bool, request: URLRequest?) -> URLError {
        switch error.code {
        case .unknown where afterResponse:
            // libcurl's "transfer closed with N bytes remaining": a body cut short after the headers.
            return URLError(.networkConnectionLost, userInfo: Malformed.failingURL(request))
        case .unsupportedURL where ["http", "https"].contains(request?.url?.scheme?.lowercased()):
            // libcurl's "unsupported protocol" for an http URL means the reply did not start with an HTTP status line.
            return Malformed.statusLine.error(for: request)
        case .unknown:
            // Everything else libcurl reports reads as -1: its message says what happened.
            return LibcurlMessage.corrected(error, request: request)
        default:
            return error
        }
    }
#endif
