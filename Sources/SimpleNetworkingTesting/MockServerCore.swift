import Foundation
import SimpleNetworking

/// All mutable state of one server. Only ever accessed inside `MockServerCore.withState(_:)`.
struct MockServerState {
    var queue: [MockResponse] = []
    var router: (@Sendable (RecordedRequest) -> MockResponse)?
    var requests: [RecordedRequest] = []
    var openConnections: Set<Int32> = []
    var acceptedConnections = 0
    var isShutdown = false
}

/// The engine behind ``MockServer``: owns the sockets and threads.
///
/// Threads reference the core, not the public `MockServer`, so dropping the last `MockServer` reference runs its
/// `deinit` (which shuts the core down) even while threads are running.
///
/// Descriptor ownership: the accept thread closes the listener and each connection thread closes its own socket,
/// both while holding the lock; `shutdown()` only calls `shutdown(2)` on them under that same lock, which wakes the
/// owners without ever touching a descriptor number that may already have been closed and reused.
final class MockServerCore: Sendable {
    // Sendable without `@unchecked`: all mutable state is in `state`, behind the package's one lock type; the other
    // stored properties are immutable and Sendable.
    private let state = Locked(MockServerState())
    private let listenFD: Int32
    private let threads = DispatchGroup()

    /// Marks this core's threads in their thread dictionaries; unique while the core (and so any thread) is alive.
    private var threadKey: String { "MockServerCore.\(ObjectIdentifier(self))" }

    init(listenFD: Int32) {
        self.listenFD = listenFD
    }

    /// Runs `body` with exclusive access to the mutable state.
    func withState<T>(_ body: (inout MockServerState) throws -> T) rethrows -> T {
        try state.withLock(body)
    }

    /// Whether ``shutdown()`` has been called.
    var isShutdown: Bool {
        withState { $0.isShutdown }
    }

    /// Starts the accept thread.
    func start() {
        spawn(name: "MockServer accept") { core in core.acceptLoop() }
    }

    /// Stops accepting, wakes every connection, and waits for all server threads to exit.
    func shutdown() {
        withState { state in
            if !state.isShutdown {
                state.isShutdown = true
                state.queue = []
                state.router = nil  // Breaks reference cycles through handlers that capture the server.
                MockServerSocket.shutdownBoth(listenFD)
                for fd in state.openConnections { MockServerSocket.shutdownBoth(fd) }
            }
        }
        // A handler (or a deinit it triggers) running on a server thread must not wait for itself.
        if Thread.current.threadDictionary[threadKey] == nil {
            threads.wait()
        }
    }

    /// Sleeps for `seconds` in short slices.
    /// - Returns: `false` if the server was shut down before the time elapsed.
    func pause(_ seconds: TimeInterval) -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        let total = seconds.isNaN ? 0 : max(0, seconds) * 1e9
        while !isShutdown {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            if elapsed >= total { return true }
            let slice = min(total - elapsed, 10_000_000)
            Thread.sleep(forTimeInterval: slice / 1e9)
        }
        return false
    }

    /// Records a fully read request and picks its response: the next queued one, else the router's, else 404.
    func record(_ head: MockServerRequestHead, body: Data, connectionIndex: Int) -> (RecordedRequest, MockResponse) {
        let (request, queued, router) = withState { state in
            let request = RecordedRequest(
                method: head.method, target: head.target, headers: head.headers, body: body,
                httpVersion: head.version, sequenceNumber: state.requests.count, connectionIndex: connectionIndex)
            state.requests.append(request)
            if state.queue.isEmpty { return (request, MockResponse?.none, state.router) }
            return (request, state.queue.removeFirst(), nil)
        }
        if let queued { return (request, queued) }
        if let router { return (request, router(request)) }
        return (request, MockResponse(status: 404))
    }

    private func acceptLoop() {
        defer { withState { _ in MockServerSocket.close(listenFD) } }
        let slice = MockServerSocket.acceptPollSliceMilliseconds
        while !isShutdown {
            switch MockServerSocket.waitReadable(listenFD, timeoutMilliseconds: slice) {
            case .timedOut:
                continue
            case .failed:
                Thread.sleep(forTimeInterval: 0.01)
                continue
            case .ready:
                break
            }
            guard let fd = MockServerSocket.accept(listenFD) else {
                // Spurious wake-up, aborted handshake, or descriptor exhaustion: back off briefly and retry.
                if !isShutdown { Thread.sleep(forTimeInterval: 0.001) }
                continue
            }
            let index: Int? = withState { state in
                guard !state.isShutdown else { return nil }
                state.openConnections.insert(fd)
                state.acceptedConnections += 1
                return state.acceptedConnections - 1
            }
            guard let index else {
                MockServerSocket.close(fd)
                return
            }
            spawn(name: "MockServer connection \(index)") { core in core.serveConnection(fd: fd, index: index) }
        }
    }

    /// Runs `body` on a new dedicated thread that ``shutdown()`` waits for.
    private func spawn(name: String, _ body: @escaping @Sendable (MockServerCore) -> Void) {
        threads.enter()
        let thread = Thread { [self] in
            Thread.current.threadDictionary[threadKey] = true
            body(self)
            threads.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Closes a connection socket owned by the calling connection thread.
    func closeConnection(_ fd: Int32) {
        withState { state in
            state.openConnections.remove(fd)
            MockServerSocket.close(fd)
        }
    }
}
