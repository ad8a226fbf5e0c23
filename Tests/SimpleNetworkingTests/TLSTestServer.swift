import Foundation

/// An HTTPS server on loopback for one test, in a child process: Python's `ssl` module with a certificate made for the
/// test by `openssl` (nothing committed, nothing that expires between runs).
///
/// It answers each connection whose handshake succeeds with `200 ok` and closes it, and stops after `connections`
/// connections, or after 30 s.
struct TLSTestServer {
    /// The server's `https://127.0.0.1:<port>` URL.
    let baseURL: URL
    /// The child process, awaited by ``finish()``.
    private let child: Task<ChildExit, any Error>

    /// Whether `openssl` and `python3` are there to make one.
    static var isAvailable: Bool { openssl != nil && python3 != nil }

    static let openssl: URL? = executable("openssl")
    static let python3: URL? = executable("python3")

    /// Starts a server whose certificate is self-signed for `127.0.0.1` and `localhost`.
    /// - Parameter connections: The connections it accepts before it exits.
    static func selfSigned(connections: Int = 1) async throws -> TLSTestServer {
        guard let openssl, let python3 else { throw ChildProcessFailure(description: "openssl or python3 is missing") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("certificate.pem").path
        let made = try await runChild(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ])
        guard made.status == 0 else { throw ChildProcessFailure(description: "openssl exited with \(made.status)") }
        let portFile = folder.appendingPathComponent("port").path
        let child = Task {
            try await runChild(python3, ["-c", script, certificate, key, portFile, "\(connections)"], timeout: 40)
        }
        // The script writes the port to a temporary name and renames it, so a port read is whole.
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text),
                let url = URL(string: "https://127.0.0.1:\(port)")
            {
                return TLSTestServer(baseURL: url, child: child)
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        child.cancel()
        throw ChildProcessFailure(description: "the TLS server did not start")
    }

    /// Waits for the server to exit.
    func finish() async {
        _ = try? await child.value
    }

    private static func executable(_ name: String) -> URL? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
        return (path + ["/usr/bin/\(name)"]).first { FileManager.default.isExecutableFile(atPath: $0) }.map {
            URL(fileURLWithPath: $0)
        }
    }

    /// The server: certificate, key, port file and the number of connections in its arguments.
    private static let script = """
        import os, socket, ssl, sys, time
        certificate, key, port_file, connections = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.settimeout(30)
        with open(port_file + ".tmp", "w") as f:
            f.write(str(listener.getsockname()[1]))
        os.rename(port_file + ".tmp", port_file)
        for _ in range(connections):
            try:
                connection, _ = listener.accept()
            except socket.timeout:
                break
            connection.settimeout(10)
            try:
                secure = context.wrap_socket(connection, server_side=True)
                secure.recv(65536)
                secure.sendall(b"HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\nConnection: close\\r\\n\\r\\nok")
                secure.close()
            except (ssl.SSLError, OSError):
                connection.close()
        """
}
