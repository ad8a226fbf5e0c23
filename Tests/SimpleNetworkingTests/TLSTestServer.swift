import Foundation
import SimpleNetworking

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

    /// The private root of ``issuedByPrivateRoot(connections:)``'s certificate, when it made one.
    var root: TLSCertificate?
    /// The SHA-256 of the server certificate's `SubjectPublicKeyInfo`.
    var publicKeyDigest = Data()

    /// Starts a server whose certificate is self-signed for `127.0.0.1` and `localhost`.
    /// - Parameter connections: The connections it accepts before it exits.
    static func selfSigned(connections: Int = 1) async throws -> TLSTestServer {
        let (openssl, folder) = try prepare()
        let key = folder.appendingPathComponent("key.pem").path
        let certificate = folder.appendingPathComponent("certificate.pem").path
        try await run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", certificate, "-days", "1", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ])
        return try await start(certificate: certificate, key: key, in: folder, connections: connections)
    }

    /// Starts a server whose certificate, for `127.0.0.1` and `localhost`, is issued by a root made for the run
    /// (``root``), which no trust store holds.
    /// - Parameter connections: The connections it accepts before it exits.
    static func issuedByPrivateRoot(connections: Int = 1) async throws -> TLSTestServer {
        let (openssl, folder) = try prepare()
        let path = { folder.appendingPathComponent($0).path }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await run(
            openssl,
            ["req", "-x509"] + curve + [
                "-keyout", path("root.key"), "-out", path("root.pem"), "-days", "1",
                "-subj", "/CN=SimpleNetworking test root", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign",
            ])
        try await run(
            openssl, ["req"] + curve + ["-keyout", path("key.pem"), "-out", path("leaf.csr"), "-subj", "/CN=localhost"])
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\n".utf8).write(to: URL(fileURLWithPath: path("leaf.ext")))
        try await run(
            openssl,
            [
                "x509", "-req", "-in", path("leaf.csr"), "-CA", path("root.pem"), "-CAkey", path("root.key"),
                "-CAcreateserial", "-out", path("certificate.pem"), "-days", "1", "-extfile", path("leaf.ext"),
            ])
        try await run(
            openssl, ["pkey", "-in", path("key.pem"), "-pubout", "-outform", "DER", "-out", path("spki.der")])
        var server = try await start(
            certificate: path("certificate.pem"), key: path("key.pem"), in: folder, connections: connections)
        server.root = try TLSCertificate.certificates(pem: String(contentsOfFile: path("root.pem"), encoding: .utf8))
            .first
        try await run(openssl, ["dgst", "-sha256", "-binary", "-out", path("digest.bin"), path("spki.der")])
        server.publicKeyDigest = try Data(contentsOf: URL(fileURLWithPath: path("digest.bin")))
        return server
    }

    private static func prepare() throws -> (openssl: URL, folder: URL) {
        guard let openssl, python3 != nil else {
            throw ChildProcessFailure(description: "openssl or python3 is missing")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (openssl, folder)
    }

    private static func run(_ openssl: URL, _ arguments: [String]) async throws {
        let made = try await runChild(openssl, arguments)
        guard made.status == 0 else {
            throw ChildProcessFailure(description: "openssl \(arguments[0]) exited with \(made.status)")
        }
    }

    private static func start(certificate: String, key: String, in folder: URL, connections: Int) async throws
        -> TLSTestServer
    {
        guard let python3 else { throw ChildProcessFailure(description: "python3 is missing") }
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
