import Foundation

/// Where the body of a 2xx response goes instead of memory: a file being downloaded, or a response stream.
protocol ResponseDestination: AnyObject, Sendable {
    /// The head of a 2xx response arrived: the body that follows is for this destination.
    func begin(_ head: SimpleResponse) throws(SimpleNetworkingError)
    /// The next piece of that body, taken at once (for a transport that cannot wait).
    func write(_ bytes: Data) throws(SimpleNetworkingError)
    /// Whether the destination's reader runs at its own pace, so that a transport may wait for it.
    var isPaced: Bool { get }
    /// The next piece of that body, once the reader has room for it.
    func writeWhenReady(_ bytes: Data) async throws(SimpleNetworkingError)
    /// The next piece of that body taken at once when the reader has room for it; `false`, taking nothing, when it
    /// has none (then ``writeWhenReady(_:)`` waits for room).
    func writeIfReady(_ bytes: Data) throws(SimpleNetworkingError) -> Bool
}

extension ResponseDestination {
    var isPaced: Bool { false }

    func writeIfReady(_ bytes: Data) throws(SimpleNetworkingError) -> Bool {
        try write(bytes)
        return true
    }

    func writeWhenReady(_ bytes: Data) async throws(SimpleNetworkingError) {
        try write(bytes)
    }
}

/// What one hop of a transfer does with what the transport hands it: the body of a 2xx response to the destination
/// (or to memory without one), every other body to memory under the usual size limit, so that redirects and the
/// handlers of a 401 or a 500 see it as always; and progress on the way.
final class HopReceiver: Sendable {
    private struct State {
        var head: SimpleResponse?
        var toDestination = false
        var memory = Data()
        var received: Int64 = 0
        var expected: Int64?
        var uploadStarted = false
    }

    private let state = Locked(State())
    private let destination: (any ResponseDestination)?
    /// The largest body kept in memory.
    private let memoryLimit: Int
    private let progress: ProgressReporter?
    private let queue: HandlerQueue
    /// Marks the head's arrival, when something listens to events.
    private let timer: AttemptTimer?

    init(
        destination: (any ResponseDestination)?, memoryLimit: Int, progress: ProgressReporter?, queue: HandlerQueue,
        timer: AttemptTimer? = nil
    ) {
        self.destination = destination
        self.memoryLimit = memoryLimit
        self.progress = progress
        self.queue = queue
        self.timer = timer
    }

    /// The callbacks the transport calls, cancelled by `signal` as well as by the calling task.
    func transfer(signal: CancellationSignal?) -> HTTPTransfer {
        let isPaced = destination?.isPaced == true
        let paced: (@Sendable (Data) async throws(SimpleNetworkingError) -> Void)? =
            isPaced
            ? { @Sendable bytes async throws(SimpleNetworkingError) in try await self.writeWhenReady(bytes) } : nil
        let ready: (@Sendable (Data) throws(SimpleNetworkingError) -> Bool)? =
            isPaced ? { @Sendable bytes throws(SimpleNetworkingError) in try self.writeIfReady(bytes) } : nil
        return HTTPTransfer(
            head: { head throws(SimpleNetworkingError) in try self.begin(head) },
            body: { bytes throws(SimpleNetworkingError) in try self.write(bytes) }, pacedBody: paced,
            readyBody: ready, sent: { sent, expected in self.sent(sent, of: expected) }, signal: signal)
    }

    private func begin(_ head: SimpleResponse) throws(SimpleNetworkingError) {
        timer?.responseHeadArrived()
        let expected = head.isSuccess ? Self.expectedLength(of: head) : nil
        let toDestination = head.isSuccess && destination != nil
        state.withLock { state in
            state = State(head: head, toDestination: toDestination, expected: expected)
        }
        if toDestination { try destination?.begin(head) }
        if head.isSuccess {
            progress?.report(
                TransferProgress(direction: .download, bytesCompleted: 0, bytesExpected: expected), on: queue,
                first: true)
        }
    }

    private func write(_ bytes: Data) throws(SimpleNetworkingError) {
        let (toDestination, current) = try account(bytes)
        if toDestination { try destination?.write(bytes) }
        if let current { progress?.report(current, on: queue) }
    }

    private func writeWhenReady(_ bytes: Data) async throws(SimpleNetworkingError) {
        let (toDestination, current) = try account(bytes)
        if toDestination { try await destination?.writeWhenReady(bytes) }
        if let current { progress?.report(current, on: queue) }
    }

    /// Takes `bytes` at once if they stay in memory or the destination has room for them; `false`, counting nothing,
    /// when the destination has none. Writes are never concurrent and the reader only makes room, so the room seen is
    /// still there when the bytes are counted.
    private func writeIfReady(_ bytes: Data) throws(SimpleNetworkingError) -> Bool {
        if state.withLock({ $0.toDestination }), let destination {
            guard try destination.writeIfReady(bytes) else { return false }
        }
        let (_, current) = try account(bytes)
        if let current { progress?.report(current, on: queue) }
        return true
    }

    /// Counts `bytes`, keeps them when they stay in memory, and says whether they go to the destination and which
    /// progress to report.
    private func account(_ bytes: Data) throws(SimpleNetworkingError)
        -> (toDestination: Bool, progress: TransferProgress?)
    {
        let step = state.withLock { state -> (toDestination: Bool, progress: TransferProgress?)? in
            if !state.toDestination {
                guard bytes.count <= memoryLimit - state.memory.count else { return nil }
                state.memory.append(bytes)
            }
            state.received += Int64(bytes.count)
            let progress = TransferProgress(
                direction: .download, bytesCompleted: state.received, bytesExpected: state.expected)
            return (state.toDestination, state.head?.isSuccess == true ? progress : nil)
        }
        guard let step else { throw .responseTooLarge(limit: memoryLimit) }
        return step
    }

    private func sent(_ bytes: Int64, of expected: Int64?) {
        guard let progress else { return }
        let first = state.withLock { state in
            defer { state.uploadStarted = true }
            return !state.uploadStarted
        }
        progress.report(
            TransferProgress(direction: .upload, bytesCompleted: bytes, bytesExpected: expected), on: queue,
            first: first, last: bytes == expected)
    }

    /// The hop's response as the transport returned it, with the body kept in memory, and the last progress value
    /// of a complete 2xx body: its total, now known.
    func finish(_ response: SimpleResponse) -> SimpleResponse {
        let (memory, received) = state.withLock { ($0.memory, $0.received) }
        if response.isSuccess {
            progress?.report(
                TransferProgress(direction: .download, bytesCompleted: received, bytesExpected: received), on: queue,
                last: true)
        }
        guard !memory.isEmpty else { return response }
        return response.with(body: memory)
    }

    /// The decoded length a response declares: its `Content-Length`, unless a content coding makes the decoded size
    /// unknown.
    private static func expectedLength(of head: SimpleResponse) -> Int64? {
        let coding = head.headers["Content-Encoding"]?.lowercased() ?? "identity"
        guard coding == "identity" || coding.isEmpty, let length = head.headers["Content-Length"] else { return nil }
        return Int64(length.trimmingCharacters(in: .whitespaces))
    }
}
