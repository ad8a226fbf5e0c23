import Foundation

/// An in-process HTTP/1.1 server on a loopback port, for testing HTTP clients over real sockets.
///
/// Each request takes the next response from ``enqueue(_:)``'s FIFO queue; when the queue is empty the
/// ``route(_:)`` handler answers; with neither, the server answers `404` with an empty body. Every request is
/// recorded in ``requests`` as soon as it has been read, before its response is written.
///
/// ```swift
/// let server = try MockServer()
/// defer { server.shutdown() }
/// server.enqueue(.json(#"{"ok":true}"#))
/// let (data, _) = try await URLSession.shared.data(from: server.url("/status"))
/// #expect(server.requests.first?.path == "/status")
/// ```
///
/// The server runs one accept thread and one thread per connection; ``shutdown()`` (also run by `deinit`)
/// closes every socket and waits for those threads to finish.
public final class MockServer: Sendable {
    // Sendable without `@unchecked`: every stored property is immutable; all mutable state lives in
    // `MockServerCore`, behind its single lock.
    private let core: MockServerCore

    /// The TCP port the server listens on, chosen by the system.
    public let port: Int

    /// The URL of the server root, e.g. `http://127.0.0.1:54321`.
    public let baseURL: URL

    /// Starts a server listening on an ephemeral port of `host`.
    /// - Parameter host: An IPv4 address literal (or `localhost`) to bind to.
    /// - Throws: ``MockServerError`` if the address is invalid or a socket call fails.
    public init(host: String = "127.0.0.1") throws(MockServerError) {
        guard let address = MockServerSocket.ipv4Address(host: host, port: 0) else { throw .invalidHost(host) }
        let fd = try MockServerSocket.makeTCPSocket()
        func fail(_ call: String) -> MockServerError {
            let error = MockServerError.systemCallFailed(call, errno: MockServerSocket.lastError)
            MockServerSocket.close(fd)
            return error
        }
        guard MockServerSocket.bind(fd, to: address) else { throw fail("bind") }
        guard MockServerSocket.listen(fd) else { throw fail("listen") }
        guard let port = MockServerSocket.localPort(fd) else { throw fail("getsockname") }
        guard let baseURL = URL(string: "http://\(host):\(port)") else {
            MockServerSocket.close(fd)
            throw .invalidHost(host)
        }
        self.port = port
        self.baseURL = baseURL
        self.core = MockServerCore(listenFD: fd)
        core.start()
    }

    deinit {
        core.shutdown()
    }

    /// A URL on this server.
    /// - Parameters:
    ///   - path: The path (and optional query) to append; a leading `/` is added if missing.
    ///   - host: The host name to put in the URL; `localhost` reaches the same socket under a different origin.
    /// - Returns: The URL, e.g. `http://127.0.0.1:54321/path`.
    public func url(_ path: String = "/", host: String = "127.0.0.1") -> URL {
        let normalized = path.hasPrefix("/") ? path : "/" + path
        let base = "http://\(host):\(port)"
        if let url = URL(string: base + normalized) { return url }
        let escaped = normalized.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? ""
        return URL(string: base + escaped) ?? baseURL
    }

    /// Adds a response to the end of the queue; each request takes the next queued response.
    /// - Parameter response: The response to serve.
    public func enqueue(_ response: MockResponse) {
        core.withState { $0.queue.append(response) }
    }

    /// Sets the handler that answers requests while the queue is empty, replacing any previous one.
    ///
    /// The handler runs on the connection's thread, outside the server's lock, so it may call back into the server.
    /// - Parameter handler: Builds the response for a recorded request.
    public func route(_ handler: @escaping @Sendable (RecordedRequest) -> MockResponse) {
        core.withState { $0.router = handler }
    }

    /// Every request received so far, in arrival order.
    public var requests: [RecordedRequest] {
        core.withState { $0.requests }
    }

    /// The number of requests received so far.
    public var requestCount: Int {
        core.withState { $0.requests.count }
    }

    /// The number of client connections open now: one closed by the client is no longer counted once the server
    /// has noticed (at its next read or write).
    public var openConnectionCount: Int {
        core.withState { $0.openConnections.count }
    }

    /// Records a request that did not come over a socket (``MockTransport/init(serving:)``) and picks its
    /// response, exactly as for one that did; `nil` once the server is shut down.
    func respond(to head: MockServerRequestHead, body: Data) -> (RecordedRequest, MockResponse)? {
        guard !core.withState({ $0.isShutdown }) else { return nil }
        return core.record(head, body: body, connectionIndex: 0)
    }

    /// Stops the server: closes the listener and every connection, and waits for all server threads to exit.
    ///
    /// Safe to call more than once; in-progress delays are interrupted. After it returns, connecting fails.
    public func shutdown() {
        core.shutdown()
    }
}

/// An error starting a ``MockServer``.
public enum MockServerError: Error, CustomStringConvertible, Sendable {
    /// The host is not an IPv4 address literal.
    case invalidHost(String)
    /// A socket call failed with the given `errno`.
    case systemCallFailed(String, errno: Int32)

    /// A readable description including the `errno` text.
    public var description: String {
        switch self {
        case .invalidHost(let host):
            "MockServer: invalid IPv4 host '\(host)'"
        case .systemCallFailed(let call, let code):
            "MockServer: \(call) failed: \(MockServerSocket.errorText(code)) (errno \(code))"
        }
    }
}
