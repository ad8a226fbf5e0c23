import Foundation

/// Watches one connection of an event stream: until its response begins, the request's timeout; after that, the
/// idle timeout, restarted by every piece of the body. When one passes, it cancels the connection's execution and
/// remembers which did.
///
/// It keeps wall-clock time (like the transport's own timeouts): it is about the wire. Each piece of the body costs a
/// lock and a clock read, nothing more.
final class EventStreamWatchdog: Sendable {
    /// Which limit passed.
    enum Expiry: Sendable {
        /// The response did not begin within the request's timeout.
        case head
        /// The connection was silent for the idle timeout.
        case idle
    }

    private struct State {
        var lastActivity = DispatchTime.now().uptimeNanoseconds
        var headArrived = false
        var expired: Expiry?
        var stopped = false
        var task: Task<Void, Never>?
    }

    private let request: SimpleRequest
    private let headTimeout: TimeInterval
    private let idleTimeout: TimeInterval?
    private let state = Locked(State())

    init(request: SimpleRequest, headTimeout: TimeInterval, idleTimeout: TimeInterval?) {
        self.request = request
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
    }

    /// Starts watching, from now.
    func start() {
        let task = Task { [self] in await watch() }
        let stopped = state.withLock { state in
            state.lastActivity = DispatchTime.now().uptimeNanoseconds
            state.task = task
            return state.stopped
        }
        if stopped { task.cancel() }
    }

    /// The response began: from now on the idle timeout applies.
    func headArrived() {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            state.headArrived = true
            state.lastActivity = now
        }
    }

    /// A piece of the body arrived.
    func touch() {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { $0.lastActivity = now }
    }

    /// Stops watching.
    /// - Returns: The limit that passed and ended the connection, if one did.
    @discardableResult
    func stop() -> Expiry? {
        let (task, expired) = state.withLock { state in
            state.stopped = true
            return (state.task.take(), state.expired)
        }
        task?.cancel()
        return expired
    }

    private func watch() async {
        enum Step {
            case done, expire, sleep(UInt64)
        }
        while !Task.isCancelled {
            let now = DispatchTime.now().uptimeNanoseconds
            let step = state.withLock { state -> Step in
                guard !state.stopped else { return .done }
                guard let limit = state.headArrived ? idleTimeout : headTimeout else { return .done }
                let due = state.lastActivity &+ UInt64(min(max(limit, 0), 1e9) * 1e9)
                // Before the head, wake within the idle timeout too: once the head arrives, that limit applies.
                let idleLimit = state.headArrived ? nil : idleTimeout.map { UInt64(min(max($0, 0), 1e9) * 1e9) }
                guard now >= due else { return .sleep(min(due - now, idleLimit ?? .max)) }
                state.expired = state.headArrived ? .idle : .head
                return .expire
            }
            switch step {
            case .done: return
            case .expire:
                request.cancelExecution()
                return
            case .sleep(let nanoseconds): try? await Task.sleep(nanoseconds: nanoseconds)
            }
        }
    }
}
