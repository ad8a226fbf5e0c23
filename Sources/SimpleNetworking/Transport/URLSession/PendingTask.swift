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
    // @unchecked Sendable: `response`, `body`, `declinedChallenge` and the converted head are only touched on the
    // session's serial delegate queue; everything else is in `state`, behind its lock, so the caller is resumed
    // exactly once.
    package typealias Outcome = Result<SimpleResponse, SimpleNetworkingError>

    private struct State: @unchecked Sendable {
        // @unchecked Sendable: URLSessionDataTask is safe to use from any thread (its methods run on its own queues)
        // but corelibs does not annotate it.
        var ended = false
        /// Unchecked: `ended` makes sure it is resumed exactly once, and the checked kind allocates for its own check.
        var continuation: UnsafeContinuation<Outcome, Never>?
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

    /// The last response converted by ``head(of:)``, and its head (apart, so that a lookup copies only what it
    /// returns).
    private var convertedResponse: HTTPURLResponse?
    private var convertedHead: ResponseHead?

    /// The headers of `response` and its framing fields, converted once per response: on Linux every read of
    /// `allHeaderFields` rebuilds the whole dictionary, and the framing check, the size check and the result all
    /// need them.
    func head(of response: HTTPURLResponse) -> ResponseHead {
        if convertedResponse === response, let convertedHead { return convertedHead }
        let head = ResponseHead(response)
        convertedResponse = response
        convertedHead = head
        return head
    }

    /// The headers of `response`, converted once per response (see ``head(of:)``).
    func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        if convertedResponse === response, let headers = convertedHead?.headers { return headers }
        return head(of: response).headers
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
        await withUnsafeContinuation { continuation in
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
        typealias Ending = (
            continuation: UnsafeContinuation<Outcome, Never>?, task: URLSessionDataTask?, deadline: UInt64?
        )
        // Taken out of the state, not copied with it: the state keeps nothing of an attempt that has ended.
        let ending = state.withLock { state -> Ending? in
            guard !state.ended else { return nil }
            state.ended = true
            let ending = (state.continuation.take(), state.task.take(), state.deadline.take())
            if ending.0 == nil { state.early = result }
            return ending
        }
        guard let ending else { return (false, nil) }
        if let deadline = ending.deadline { DeadlineTimers.shared.cancel(deadline) }
        ending.continuation?.resume(returning: result)
        return (true, ending.task)
    }
}
