import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin wrappers around the POSIX socket calls the mock server needs, hiding Glibc/Darwin differences.
enum MockServerSocket {
    /// The outcome of waiting for a descriptor to become readable.
    enum Readiness {
        case ready
        case timedOut
        case failed
    }

    /// How long a wait on a connection lasts before the caller re-checks the shutdown flag, in milliseconds.
    ///
    /// Only a safety net: `shutdown()` calls `shutdown(2)` on every connection, which wakes its `poll` at once on
    /// every platform. Short slices cost a wake-up per slice per idle thread: with hundreds of servers alive in a
    /// parallel test run they kept both cores of a small machine busy.
    static let connectionPollSliceMilliseconds: Int32 = 1000

    /// How long a wait for a new connection lasts before the accept loop re-checks the shutdown flag.
    ///
    /// Linux wakes a `poll` on a listening socket when it is shut down, so the slice is only a safety net there;
    /// Darwin does not, so there it bounds how long ``MockServer/shutdown()`` takes.
    #if canImport(Darwin)
        static let acceptPollSliceMilliseconds: Int32 = 20
    #else
        static let acceptPollSliceMilliseconds: Int32 = 1000
    #endif

    /// Creates a TCP/IPv4 socket (with `SO_NOSIGPIPE` on Darwin).
    ///
    /// No `SO_REUSEADDR`: servers always bind port 0, so there is no fixed port to rebind while in TIME_WAIT.
    static func makeTCPSocket() throws(MockServerError) -> Int32 {
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue)
        #else
            let type = SOCK_STREAM
        #endif
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { throw .systemCallFailed("socket", errno: errno) }
        disableSigPipe(fd)
        return fd
    }

    /// Builds an IPv4 socket address for `host` (a dotted-quad literal or `localhost`) and `port`.
    static func ipv4Address(host: String, port: UInt16) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        let literal = host == "localhost" ? "127.0.0.1" : host
        guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else { return nil }
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        return address
    }

    /// Binds `fd` to `address`.
    static func bind(_ fd: Int32, to address: sockaddr_in) -> Bool {
        var address = address
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                #if canImport(Glibc)
                    Glibc.bind(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #else
                    Darwin.bind(fd, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                #endif
            }
        }
    }

    /// Starts listening on `fd`.
    static func listen(_ fd: Int32) -> Bool {
        #if canImport(Glibc)
            Glibc.listen(fd, 128) == 0
        #else
            Darwin.listen(fd, 128) == 0
        #endif
    }

    /// The calling thread's current `errno`.
    static var lastError: Int32 { errno }

    /// Returns the local port `fd` is bound to.
    static func localPort(_ fd: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one pending connection, returning its descriptor or `nil` on failure.
    static func accept(_ fd: Int32) -> Int32? {
        #if canImport(Glibc)
            let client = Glibc.accept(fd, nil, nil)
        #else
            let client = Darwin.accept(fd, nil, nil)
        #endif
        guard client >= 0 else { return nil }
        disableSigPipe(client)
        var one: Int32 = 1
        _ = setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return client
    }

    /// Waits up to `timeoutMilliseconds` for `fd` to become readable (or hung up).
    static func waitReadable(_ fd: Int32, timeoutMilliseconds: Int32) -> Readiness {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let result = poll(&descriptor, 1, timeoutMilliseconds)
        if result > 0 { return .ready }
        if result == 0 { return .timedOut }
        return errno == EINTR ? .timedOut : .failed
    }

    /// Reads up to `capacity` bytes. Returns `nil` on error, an empty array at end of stream.
    static func receive(_ fd: Int32, capacity: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, capacity, 0) }
            if count >= 0 { return Array(buffer.prefix(count)) }
            if errno != EINTR { return nil }
        }
    }

    /// Writes all of `bytes`, never raising `SIGPIPE`. Returns `false` if the peer is gone.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        let data = Array(bytes)
        var offset = 0
        while offset < data.count {
            let written = data.withUnsafeBytes { raw in
                send(fd, raw.baseAddress.map { $0 + offset }, data.count - offset, sendFlags)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Shuts down both directions of `fd`, waking any thread blocked on it.
    static func shutdownBoth(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #else
            _ = Darwin.shutdown(fd, SHUT_RDWR)
        #endif
    }

    /// Shuts down the sending direction of `fd`, so the peer reads end of stream.
    static func shutdownWrite(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        #else
            _ = Darwin.shutdown(fd, SHUT_WR)
        #endif
    }

    /// Closes `fd`.
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }

    /// A human-readable description of an `errno` value.
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    private static var sendFlags: Int32 {
        #if canImport(Glibc)
            Int32(MSG_NOSIGNAL)
        #else
            0
        #endif
    }

    private static func disableSigPipe(_ fd: Int32) {
        #if canImport(Darwin)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }
}
