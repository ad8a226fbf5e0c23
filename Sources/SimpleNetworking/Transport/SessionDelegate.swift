import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One attempt in flight: its continuation, the body so far, and why it failed if the library stopped it.
final class PendingTask: @unchecked Sendable {
    // @unchecked Sendable: `response`, `body` and `declinedChallenge` are only touched on the session's serial
    // delegate queue; whether it finished and its deadline timer are behind `ending`'s lock, so the continuation is
    // resumed at most once and a timer armed after the end is cancelled at once.
    private let continuation: CheckedContinuation<Result<SimpleResponse, SimpleNetworkingError>, Never>
    private let ending = Locked<(finished: Bool, deadline: DeadlineTimer?)>((false, nil))
    /// The largest body accepted, counted after decompression.
    let maximumBodySize: Int
    var response: HTTPURLResponse?
    var body = Data()
    /// The 401 or 407 of an authentication challenge the library declined (Linux only, see `didReceive challenge`).
    var declinedChallenge: HTTPURLResponse?

    init(
        continuation: CheckedContinuation<Result<SimpleResponse, SimpleNetworkingError>, Never>,
        maximumBodySize: Int = .max
    ) {
        self.continuation = continuation
        self.maximumBodySize = maximumBodySize
    }

    /// Schedules `timer` to run after `seconds`, unless the attempt has already finished.
    func arm(_ timer: DispatchWorkItem, after seconds: TimeInterval) {
        let armed = ending.withLock { ending in
            guard !ending.finished else { return false }
            ending.deadline = DeadlineTimer(item: timer)
            return true
        }
        if armed { DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer) }
    }

    func finish(with result: Result<SimpleResponse, SimpleNetworkingError>) {
        let (first, deadline) = ending.withLock { ending in
            defer { ending = (true, nil) }
            return (!ending.finished, ending.deadline)
        }
        deadline?.item.cancel()
        guard first else { return }
        continuation.resume(returning: result)
    }
}

/// An attempt's deadline timer, kept under a lock and cancelled from any thread.
///
/// `@unchecked Sendable`: `DispatchWorkItem` is thread-safe (its `cancel()` may be called from any thread) but is not
/// annotated `Sendable` in corelibs Dispatch.
private struct DeadlineTimer: @unchecked Sendable {
    let item: DispatchWorkItem
}

/// The session-level delegate of the library's own session (per-task delegates are never asked about redirects on
/// Linux). It holds only the attempts in flight, keyed by task, never the client, so the client can be released.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `registry`, behind its lock.
    private struct Registry {
        var pending: [Int: (task: URLSessionDataTask, pending: PendingTask)] = [:]
        var closed = false
    }

    private let registry = Locked(Registry())

    /// Creates the task with `makeTask` and registers it; `nil` once the session is closed.
    func register(_ pending: PendingTask, makeTask: () -> URLSessionDataTask) -> URLSessionDataTask? {
        registry.withLock { registry in
            guard !registry.closed else { return nil }
            let task = makeTask()
            registry.pending[task.taskIdentifier] = (task, pending)
            return task
        }
    }

    /// Marks the session closed and returns the tasks still in flight.
    func close() -> [URLSessionDataTask] {
        registry.withLock { registry in
            registry.closed = true
            return registry.pending.values.map(\.task)
        }
    }

    /// Ends an attempt early with `error` (timeout, cancellation, size limit) and cancels its task.
    func fail(_ task: URLSessionTask, with error: SimpleNetworkingError) {
        let pending = registry.withLock { $0.pending.removeValue(forKey: task.taskIdentifier)?.pending }
        task.cancel()
        pending?.finish(with: .failure(error))
    }

    /// Ends an attempt of a caller-supplied session, from its completion handler.
    func complete(_ pending: PendingTask, response: URLResponse?, data: Data, error: (any Error)?) {
        registry.withLock { registry in
            registry.pending = registry.pending.filter { $0.value.pending !== pending }
        }
        pending.response = response as? HTTPURLResponse
        pending.body = data
        pending.finish(with: Self.result(of: pending, error: error))
    }

    private func pending(for task: URLSessionTask) -> PendingTask? {
        registry.withLock { $0.pending[task.taskIdentifier]?.pending }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let pending = pending(for: dataTask) else { return completionHandler(.cancel) }
        pending.response = response as? HTTPURLResponse
        if let response = pending.response, Self.declaredLength(of: response, for: dataTask) > pending.maximumBodySize {
            // Linux ignores `.cancel` here and downloads the body anyway, so the task is cancelled directly (see
            // "URLSession on Linux" in the documentation).
            fail(dataTask, with: .responseTooLarge(limit: pending.maximumBodySize))
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let pending = pending(for: dataTask) else { return }
        // Counted on decoded bytes: both platforms decompress before this call (on Linux every encoding libcurl
        // knows, with no limit of its own; see "URLSession on Linux" in the documentation), so a compression bomb
        // stops within one chunk of the limit.
        guard data.count <= pending.maximumBodySize - pending.body.count else {
            return fail(dataTask, with: .responseTooLarge(limit: pending.maximumBodySize))
        }
        pending.body.append(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Never follow here: the 3xx comes back as the response and the client follows it by its own rules, the same
        // on every platform. On Linux URLSession would forward credentials and drop 307 bodies: see
        // "URLSession on Linux" in the documentation.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let pending = registry.withLock({ $0.pending.removeValue(forKey: task.taskIdentifier)?.pending }) else {
            return
        }
        // On Linux a 3xx without a usable Location completes without `didReceive response`; the task still has it.
        if pending.response == nil { pending.response = task.response as? HTTPURLResponse }
        if let challenged = pending.declinedChallenge, (error as? URLError)?.code == .cancelled {
            // The challenge was declined after the whole response arrived: the 401 is the answer.
            pending.response = challenged
            return pending.finish(with: Self.result(of: pending, error: nil))
        }
        pending.finish(with: Self.result(of: pending, error: error))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Never answer challenges with a credential: a 401 must reach the library's handlers, and on Linux answering a
        // Digest or unknown scheme with a credential reaches a fatalError in FoundationNetworking: see
        // "URLSession on Linux" in the documentation.
        #if canImport(FoundationNetworking)
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
    private static func declaredLength(of response: HTTPURLResponse, for task: URLSessionTask) -> Int64 {
        let coding = (response.value(forHTTPHeaderField: "Content-Encoding") ?? "identity").lowercased()
        guard task.originalRequest?.httpMethod != "HEAD", response.statusCode != 204, response.statusCode != 304,
            coding == "identity" || coding.isEmpty
        else { return 0 }
        return response.expectedContentLength
    }

    private static func result(of pending: PendingTask, error: (any Error)?) -> Result<
        SimpleResponse, SimpleNetworkingError
    > {
        if let error {
            var urlError = error as? URLError ?? URLError(.unknown)
            #if canImport(FoundationNetworking)
                // libcurl's "transfer closed with N bytes remaining" (a body cut short after the headers) arrives as
                // .unknown on Linux; Apple platforms report it as a lost connection, and so does the library.
                if urlError.code == .unknown, pending.response != nil { urlError = URLError(.networkConnectionLost) }
            #endif
            return .failure(urlError.code == .cancelled ? .cancelled : .transportFailed(TransportFailure(urlError)))
        }
        guard let response = pending.response else {
            return .failure(.transportFailed(TransportFailure(URLError(.badServerResponse))))
        }
        return .success(
            SimpleResponse(
                statusCode: response.statusCode, headers: HTTPHeaders(response), body: pending.body,
                url: response.url))
    }
}

extension HTTPHeaders {
    /// The headers of a Foundation response.
    init(_ response: HTTPURLResponse) {
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            headers.add(name: name, value: value as? String ?? "\(value)")
        }
        self = headers
    }
}
