import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One attempt in flight: the caller waiting for it, its URLSession task and deadline once they exist, the body so
/// far, and why it failed if the library stopped it.
///
/// The caller is resumed the moment the attempt ends, by whichever comes first: the response, a failure, the deadline,
/// cancellation or the size limit. Cancelling the URLSession task comes afterwards and off the caller's path, because
/// on Linux `URLSessionTask.cancel()` waits for the session's work queue, which libcurl can keep busy for seconds (see
/// "URLSession on Linux" in the documentation). Nothing of an attempt outlives it: its deadline is cancelled, and its
/// handler released, when the attempt ends.
package final class PendingTask: @unchecked Sendable {
    // @unchecked Sendable: `response`, `body`, `declinedChallenge` and `converted` are only touched on the session's
    // serial delegate queue; everything else is in `state`, behind its lock, so the caller is resumed exactly once.
    package typealias Outcome = Result<SimpleResponse, SimpleNetworkingError>

    private struct State: @unchecked Sendable {
        // @unchecked Sendable: URLSessionDataTask is safe to use from any thread (its methods run on its own queues)
        // but corelibs does not annotate it.
        var ended = false
        var continuation: CheckedContinuation<Outcome, Never>?
        /// The outcome of an attempt that ended before its caller started waiting.
        var early: Outcome?
        var task: URLSessionDataTask?
        /// The attempt's entry in ``DeadlineTimers/shared``.
        var deadline: UInt64?
    }

    private let state = Locked(State())
    /// The largest body accepted, counted after decompression.
    let maximumBodySize: Int
    var response: HTTPURLResponse?
    var body = Data()
    /// Where the body goes as it arrives instead of ``body`` (see ``HTTPTransfer``), once its head has been given.
    let transfer: HTTPTransfer?
    /// Whether ``transfer`` has had the response's head; until then the body is kept in ``body``.
    var headDelivered = false
    /// The body bytes received so far, for the size limit.
    var received = 0
    /// The 401 or 407 of an authentication challenge the library declined (Linux only, see `didReceive challenge`).
    var declinedChallenge: HTTPURLResponse?

    package init(maximumBodySize: Int = .max, transfer: HTTPTransfer? = nil) {
        self.maximumBodySize = maximumBodySize
        self.transfer = transfer
    }

    /// The last response converted by ``headers(of:)``, with its headers.
    private var converted: (response: HTTPURLResponse, headers: HTTPHeaders)?

    /// The headers of `response`, converted once per response: on Linux every read of `allHeaderFields` rebuilds
    /// the whole dictionary, and the framing check, the size check and the result all need them.
    func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        if let converted, converted.response === response { return converted.headers }
        let headers = HTTPHeaders(response)
        converted = (response, headers)
        return headers
    }

    /// Gives ``transfer`` the response's head, and the body kept so far, unless it has had them.
    func deliverHead() throws(SimpleNetworkingError) {
        guard let transfer, !headDelivered, let response else { return }
        headDelivered = true
        try transfer.receive(
            head: SimpleResponse(statusCode: response.statusCode, headers: headers(of: response), url: response.url))
        if !body.isEmpty {
            let kept = body
            body = Data()
            try transfer.receive(kept)
        }
    }

    /// Waits until the attempt ends and returns how.
    package func outcome() async -> Outcome {
        await withCheckedContinuation { continuation in
            let early = state.withLock { state -> Outcome? in
                if !state.ended { state.continuation = continuation }
                defer { state.early = nil }
                return state.early
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    /// Whether the attempt has ended.
    var hasEnded: Bool { state.withLock { $0.ended } }

    /// Starts the deadline: `expire` runs after `seconds` unless the attempt has ended by then.
    func startDeadline(after seconds: TimeInterval, _ expire: @escaping @Sendable () -> Void) {
        let deadline = DeadlineTimers.shared.schedule(after: seconds, expire)
        let armed = state.withLock { state in
            guard !state.ended else { return false }
            state.deadline = deadline
            return true
        }
        if !armed { DeadlineTimers.shared.cancel(deadline) }
    }

    /// Records the attempt's task; `false` when the attempt has already ended, so the task must not run.
    func attach(_ task: URLSessionDataTask) -> Bool {
        state.withLock { state in
            guard !state.ended else { return false }
            state.task = task
            return true
        }
    }

    /// Ends the attempt with `result` and resumes the caller, unless it has already ended. The deadline is
    /// cancelled, which releases everything its handler holds.
    /// - Returns: Whether this call ended it, and its task if one was attached (to be cancelled unless it completed).
    @discardableResult
    func finish(with result: Outcome) -> (ended: Bool, task: URLSessionDataTask?) {
        let ending = state.withLock { state -> State? in
            guard !state.ended else { return nil }
            let before = state
            state = State(ended: true, early: before.continuation == nil ? result : nil)
            return before
        }
        guard let ending else { return (false, nil) }
        if let deadline = ending.deadline { DeadlineTimers.shared.cancel(deadline) }
        ending.continuation?.resume(returning: result)
        return (true, ending.task)
    }
}

/// Tasks handed to another thread to be cancelled.
///
/// `@unchecked Sendable`: `URLSessionTask.cancel()` may be called from any thread, but corelibs does not annotate the
/// class `Sendable`.
private struct UncheckedTasks: @unchecked Sendable {
    let tasks: [URLSessionDataTask]
}

/// The session-level delegate of the library's own session (per-task delegates are never asked about redirects on
/// Linux). It holds only the attempts in flight, keyed by task, never the client, so the client can be released.
package final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `registry`, behind its lock.
    private struct Registry {
        var pending: [Int: PendingTask] = [:]
        var closed = false
    }

    private let registry = Locked(Registry())
    /// Where cancelling tasks and invalidating the session run: on Linux each of those waits for the session's work
    /// queue while libcurl is busy, and a cancel can wait as long as a server keeps writing. A serial queue of the
    /// client's own, so that such a wait holds up no other client; a global queue has as many threads as cores, and
    /// blocking them would hold up every client in the process.
    let control = DispatchQueue(label: "SimpleNetworking.session-control")

    /// Where tasks are created and resumed, for every client of the process: on Linux each of those waits for the
    /// work queue that all sessions share, so they take turns anyway, and one queue blocks at most one thread. With a
    /// queue per client, a few hundred clients starting requests at once (the test suite's) blocked a thread each,
    /// libdispatch's pool ran out, and the work queue itself got no thread to run on: every request of the process
    /// hung.
    static let starts = DispatchQueue(label: "SimpleNetworking.task-start")

    /// Creates the attempt's task with `makeTask`, registers it and starts it; ends the attempt with a transport
    /// failure once the session is closed.
    ///
    /// Call it on ``starts``, never on the caller's thread: on Linux creating and resuming a task wait for the
    /// session's work queue, which libcurl can keep busy for seconds. For the same reason the registry's lock is never
    /// held while the task is made or resumed: the delegate callbacks, the deadlines of every client and
    /// `close()` take that lock, and would wait for libcurl behind it. The task is made outside the lock and
    /// registered after; creating it cannot race with the invalidation of the session, which is queued on ``starts``,
    /// after this.
    package func start(_ pending: PendingTask, makeTask: () -> URLSessionDataTask) {
        guard !registry.withLock({ $0.closed }), !pending.hasEnded else {
            pending.finish(with: .failure(.transportFailed(TransportFailure(URLError(.cancelled)))))
            return
        }
        let task = makeTask()
        let registered = registry.withLock { registry -> Bool in
            guard !registry.closed else { return false }
            registry.pending[task.taskIdentifier] = pending
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
        pending.response = response as? HTTPURLResponse
        pending.body = data
        let (_, task) = pending.finish(with: Self.result(of: pending, request: request, error: error))
        if let task { forget(task, of: pending) }
    }

    private func pending(for task: URLSessionTask) -> PendingTask? {
        registry.withLock { $0.pending[task.taskIdentifier] }
    }

    private func forget(_ task: URLSessionTask, of pending: PendingTask) {
        registry.withLock { registry in
            if registry.pending[task.taskIdentifier] === pending { registry.pending[task.taskIdentifier] = nil }
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
            let headers = pending.headers(of: response)
            if let problem = Malformed.framing(of: headers) {
                // On Linux libcurl reads such a body by one of the lengths, and waits for bytes that never come.
                stop(pending, with: .transportFailed(TransportFailure(problem.error(for: dataTask.originalRequest))))
                return completionHandler(.cancel)
            }
            if Self.declaredLength(of: response, headers: headers, for: dataTask) > pending.maximumBodySize {
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
        guard let pending = registry.withLock({ $0.pending.removeValue(forKey: task.taskIdentifier) }) else {
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
            completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// The body length the response declares, when that is the length that will be counted: not for HEAD, not
    /// for statuses without a body, and not when a content coding makes the decoded length unknown.
    private static func declaredLength(of response: HTTPURLResponse, headers: HTTPHeaders, for task: URLSessionTask)
        -> Int64
    {
        let coding = (headers["Content-Encoding"] ?? "identity").lowercased()
        guard task.originalRequest?.httpMethod != "HEAD", response.statusCode != 204, response.statusCode != 304,
            coding == "identity" || coding.isEmpty
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
        case .unknown
        where (error.userInfo[NSLocalizedDescriptionKey] as? String)?.lowercased().contains("header") == true:
            // libcurl's "Header without colon", "Nul byte in header", "Too large response headers", ...
            return Malformed.headers.error(for: request)
        default:
            return error
        }
    }
#endif

/// What can make a response invalid HTTP, with the library's words for it.
enum Malformed {
    case statusLine, headers, conflictingLength, invalidLength

    /// The library's detail for the error's description: what is wrong, and where to look.
    var detail: String {
        switch self {
        case .statusLine:
            return "its status line is not HTTP/1.x and a three-digit status "
                + "(does the port serve plain HTTP, not TLS or another protocol?)"
        case .headers:
            return "its header section could not be read "
                + "(a line without a colon, a NUL byte, or more header bytes than libcurl accepts)"
        case .conflictingLength:
            return "it has Content-Length fields that disagree, so where its body ends is unknown"
        case .invalidLength:
            return "its Content-Length is not a decimal number, so where its body ends is unknown"
        }
    }

    /// `URLError(.badServerResponse)` with this problem as the library's detail, and the failing URL.
    func error(for request: URLRequest?) -> URLError {
        var userInfo = Self.failingURL(request)
        userInfo[TransportFailure.detailKey] = detail
        return URLError(.badServerResponse, userInfo: userInfo)
    }

    static func failingURL(_ request: URLRequest?) -> [String: Any] {
        guard let url = request?.url else { return [:] }
        return [NSURLErrorFailingURLErrorKey: url]
    }

    /// The problem with how a response with `headers` delimits its body, if any (RFC 9112, section 6.3): every
    /// `Content-Length` value must be a decimal number, and repeated values must agree. `Transfer-Encoding`
    /// overrides it.
    static func framing(of headers: HTTPHeaders) -> Malformed? {
        guard headers["Transfer-Encoding"] == nil else { return nil }
        let fields = headers.values(for: "Content-Length")
        // The common case, one plain number, without splitting or trimming.
        if fields.count == 1, let only = fields.first, !only.isEmpty,
            only.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        {
            return nil
        }
        guard !fields.isEmpty else { return nil }
        // Repeated fields arrive joined with ", " on Linux, and as separate fields elsewhere.
        let length = fields.joined(separator: ",")
        let values = length.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let numbers = values.compactMap { value -> String? in
            guard !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            let digits = value.drop { $0 == "0" }
            return digits.isEmpty ? "0" : String(digits)
        }
        guard numbers.count == values.count else { return .invalidLength }
        return Set(numbers).count == 1 ? nil : .conflictingLength
    }
}

extension HTTPHeaders {
    /// The headers of a Foundation response (package-wide, for transport-probe to measure).
    ///
    /// Repeated fields arrive joined with ", " in `allHeaderFields`; that is equivalent for list headers (RFC 9110,
    /// section 5.3), but not for `Set-Cookie`, whose dates hold commas, so `Set-Cookie` is split back into its fields.
    /// On Linux `allHeaderFields` rebuilds the response's `[String: String]` as `[AnyHashable: Any]` on every call,
    /// so it is read once; casting that whole dictionary back costs more than casting each name through `base`.
    package init(_ response: HTTPURLResponse) {
        let all = response.allHeaderFields
        var fields: [Field] = []
        fields.reserveCapacity(all.count)
        func add(_ name: String, _ value: String) {
            // The first byte rules out almost every other name before a full comparison.
            guard name.utf8.first.map({ $0 | 0x20 }) == UInt8(ascii: "s"), name.equalsIgnoringASCIICase("Set-Cookie")
            else {
                return fields.append(Field(name: name, value: value))
            }
            for cookie in SetCookieFields.split(value) { fields.append(Field(name: name, value: cookie)) }
        }
        for (name, value) in all {
            // Through `base`: a cast from `Any` that checks one type, where casting the AnyHashable itself goes
            // through its generic box and costs several times more.
            guard let name = name.base as? String else { continue }
            add(name, value as? String ?? "\(value)")
        }
        self.init(fields)
    }
}
