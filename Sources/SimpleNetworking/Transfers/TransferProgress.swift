import Foundation

/// How far an upload or a download has come.
///
/// Reported for the request body as it is sent and for the body of a 2xx response as it arrives, at most about ten
/// times a second, always with a first and a last value. A retry starts again from zero.
public struct TransferProgress: Sendable, Hashable {
    /// Which body the progress is about.
    public enum Direction: Sendable, Hashable {
        /// The request body, being sent.
        case upload
        /// The response body, arriving.
        case download
    }

    /// Which body the progress is about.
    public var direction: Direction
    /// The bytes sent or received so far (received bytes are counted after decompression).
    public var bytesCompleted: Int64
    /// The size of the whole body, or `nil` when it is unknown: a response without `Content-Length`, or with a
    /// content coding, whose decoded size the length does not give.
    public var bytesExpected: Int64?

    /// Creates a progress value.
    /// - Parameters:
    ///   - direction: Which body it is about.
    ///   - bytesCompleted: The bytes done so far.
    ///   - bytesExpected: The size of the whole body, or `nil` when unknown.
    public init(direction: Direction, bytesCompleted: Int64, bytesExpected: Int64?) {
        self.direction = direction
        self.bytesCompleted = bytesCompleted
        self.bytesExpected = bytesExpected
    }

    /// The fraction done, from 0 to 1, or `nil` when the size is unknown: never a fraction stuck at zero.
    public var fractionCompleted: Double? {
        guard let bytesExpected else { return nil }
        guard bytesExpected > 0 else { return 1 }
        return min(1, Double(bytesCompleted) / Double(bytesExpected))
    }
}

extension SimpleRequest {
    /// Adds a handler for the progress of the upload and of the download, run on the client's handler queue.
    ///
    /// The handler gets both: each value's ``TransferProgress/direction`` says which body it is about, or use
    /// ``uploadProgress(_:)`` and ``downloadProgress(_:)`` for one of them. Values come in order, one at a time, at
    /// most about ten a second, each direction starting with a first value and ending with its total when the body is
    /// complete; an upload's values come before its response's. A retry starts again from zero.
    /// - Parameter handler: Receives each progress value.
    /// - Returns: This request.
    @discardableResult
    public func progress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        progressReporter.add(handler)
        return self
    }

    /// Adds a handler for the progress of the request body as it is sent, as ``progress(_:)`` describes.
    ///
    /// ```swift
    /// _ = try await api.post("/photos").body(fileAt: photo)
    ///     .uploadProgress { print("sent \($0.bytesCompleted) of \($0.bytesExpected ?? 0) bytes") }
    ///     .response()
    /// ```
    /// - Parameter handler: Receives each upload progress value.
    /// - Returns: This request.
    @discardableResult
    public func uploadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        progress { if $0.direction == .upload { handler($0) } }
    }

    /// Adds a handler for the progress of the response body as it arrives, as ``progress(_:)`` describes.
    /// - Parameter handler: Receives each download progress value.
    /// - Returns: This request.
    @discardableResult
    public func downloadProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        progress { if $0.direction == .download { handler($0) } }
    }

    /// The progress of the next execution of this request, as an asynchronous sequence that ends when the execution
    /// does.
    ///
    /// Ask for it before running the request. A slow reader skips values rather than falling behind: the sequence
    /// keeps the latest one, so it still ends with the total.
    /// - Returns: The progress values, in order.
    public func progressUpdates() -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        progressReporter.add(continuation)
        return stream
    }

    /// The request's progress reporter, made the first time it is needed.
    var progressReporter: ProgressReporter {
        state.withLock { state in
            if let reporter = state.parts.progress { return reporter }
            let reporter = ProgressReporter()
            state.parts.progress = reporter
            return reporter
        }
    }
}

/// Hands progress values to a request's handlers and sequences, throttled.
///
/// Handlers get values through one job at a time on the handler queue, which takes the latest value each time, so
/// they see them in order even on a concurrent queue.
final class ProgressReporter: Sendable {
    /// The shortest time between two values of one direction, except the first and the last.
    static let interval: TimeInterval = 0.1

    private struct State {
        var handlers: [@Sendable (TransferProgress) -> Void] = []
        var streams: [AsyncStream<TransferProgress>.Continuation] = []
        /// When each direction last reported, in uptime nanoseconds.
        var lastReport: [TransferProgress.Direction: UInt64] = [:]
        /// The values waiting for the handler job, latest last, at most one per direction.
        var waiting: [TransferProgress] = []
        var delivering = false
        /// Handlers run on the main actor instead of the client's queue (``SimpleRequest/onMainActor(progress:)``).
        var onMainActor = false
    }

    private let state = Locked(State())

    func add(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        state.withLock { $0.handlers.append(handler) }
    }

    /// Runs the handlers on the main actor from now on.
    func runOnMainActor() {
        state.withLock { $0.onMainActor = true }
    }

    func add(_ stream: AsyncStream<TransferProgress>.Continuation) {
        state.withLock { $0.streams.append(stream) }
    }

    /// Reports `progress`, unless the direction reported less than ``interval`` ago and `progress` is neither its
    /// first nor its last value.
    func report(_ progress: TransferProgress, on queue: HandlerQueue, first: Bool = false, last: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        let (schedule, onMainActor) = state.withLock { state -> (Bool, Bool) in
            if !first, !last, let previous = state.lastReport[progress.direction],
                now - previous < UInt64(Self.interval * 1e9)
            {
                return (false, false)
            }
            state.lastReport[progress.direction] = now
            for stream in state.streams { stream.yield(progress) }
            guard !state.handlers.isEmpty else { return (false, false) }
            state.waiting.removeAll { $0.direction == progress.direction }
            state.waiting.append(progress)
            defer { state.delivering = true }
            return (!state.delivering, state.onMainActor)
        }
        if schedule { (onMainActor ? .mainActor : queue).schedule { self.deliver() } }
    }

    /// Runs the handlers on every waiting value, in order, until none is left.
    private func deliver() {
        while true {
            let next = state.withLock { state -> (TransferProgress, [@Sendable (TransferProgress) -> Void])? in
                guard !state.waiting.isEmpty else {
                    state.delivering = false
                    return nil
                }
                return (state.waiting.removeFirst(), state.handlers)
            }
            guard let (progress, handlers) = next else { return }
            for handler in handlers { handler(progress) }
        }
    }

    /// Ends the sequences of ``SimpleRequest/progressUpdates()``: the execution they follow has ended.
    func finishUpdates() {
        let streams = state.withLock { state in
            defer { state.streams = [] }
            return state.streams
        }
        for stream in streams { stream.finish() }
    }
}
