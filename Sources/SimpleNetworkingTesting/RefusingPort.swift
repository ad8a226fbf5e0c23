import Foundation

/// A loopback port where every connection is refused, reserved for as long as this value lives.
///
/// Use it to test "cannot connect": its socket is bound but never listens, so the kernel refuses connections, and no
/// other server in the process (a parallel test's ``MockServer``, say) can be given the same port, as it could be
/// after shutting a server down to free its port.
public final class RefusingPort: Sendable {
    /// The reserved port.
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL
    private let fd: Int32

    /// Reserves a loopback port that refuses connections.
    /// - Throws: ``MockServerError`` when the socket cannot be made or bound.
    public init() throws(MockServerError) {
        guard let address = MockServerSocket.ipv4Address(host: "127.0.0.1", port: 0) else {
            throw .invalidHost("127.0.0.1")
        }
        let fd = try MockServerSocket.makeTCPSocket()
        guard MockServerSocket.bind(fd, to: address), let port = MockServerSocket.localPort(fd),
            let baseURL = URL(string: "http://127.0.0.1:\(port)")
        else {
            let error = MockServerError.systemCallFailed("bind", errno: MockServerSocket.lastError)
            MockServerSocket.close(fd)
            throw error
        }
        self.fd = fd
        self.port = port
        self.baseURL = baseURL
    }

    deinit {
        MockServerSocket.close(fd)
    }

    /// A URL on the reserved port.
    /// - Parameter path: The path, starting with `/`.
    /// - Returns: `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path)) ?? baseURL
    }
}
