import Foundation
import NIOSSL
import SimpleNetworking

/// Certificates and keys made by `openssl` for this test run, in a temporary folder: a test CA, server certificates
/// it issued (valid for 127.0.0.1 and localhost, expired, for another host), a self-signed server certificate, and a
/// client certificate with its key in PEM and in PKCS #12. Nothing is committed, nothing outlives the run.
struct TLSFixtures: Sendable {
    /// A server's certificate chain and key.
    struct Server: Sendable {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
    }

    /// The CA, as the TLS policy takes a root.
    let caRoots: [TLSCertificate]
    /// The CA, as the test server trusts it for client certificates.
    let caForServer: NIOSSLCertificate
    /// Issued by the CA for 127.0.0.1 and localhost, valid for two days.
    let valid: Server
    /// The SHA-256 of `valid`'s key's DER `SubjectPublicKeyInfo`: its pin.
    let validKeyDigest: Data
    /// Issued by the CA for 127.0.0.1, valid only in January 2020.
    let expired: Server
    /// Issued by the CA for wrong.example.com only.
    let wrongHost: Server
    /// Self-signed for 127.0.0.1, not a CA's.
    let selfSigned: Server
    /// The self-signed certificate, as a root the TLS policy takes.
    let selfSignedRoot: TLSCertificate
    /// The client's identity, issued by the CA, as PEM.
    let clientPEM: TLSClientIdentity
    /// The same identity as a PKCS #12 archive.
    let clientPKCS12: TLSClientIdentity
    /// The archive with a wrong password.
    let clientPKCS12WrongPassword: TLSClientIdentity

    /// The fixtures of this run, made once.
    static let shared = Task<TLSFixtures, any Error> { try make() }

    static func make() throws -> TLSFixtures {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sn-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = OpenSSL(folder: folder)
        try run.write(
            "openssl.cnf",
            """
            [req]
            distinguished_name = dn
            prompt = no
            [dn]
            CN = unused
            [ca_ext]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            [server_ext]
            basicConstraints = CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1, DNS:localhost
            [wrong_host_ext]
            basicConstraints = CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:wrong.example.com
            [self_ext]
            subjectAltName = IP:127.0.0.1, DNS:localhost
            [client_ext]
            basicConstraints = CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = clientAuth
            [ca]
            default_ca = test_ca
            [test_ca]
            database = \(folder.path)/index.txt
            new_certs_dir = \(folder.path)
            serial = \(folder.path)/serial
            default_md = sha256
            policy = any_name
            unique_subject = no
            [any_name]
            commonName = supplied
            """)
        try run.write("index.txt", "")
        try run.write("serial", "1000\n")
        let config = ["-config", "openssl.cnf"]
        let ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try run(
            ["req", "-x509"] + config + ecKey
                + [
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=SimpleNetworking Test CA",
                    "-extensions", "ca_ext",
                ])
        func issue(_ name: String, subject: String, extensions: String) throws {
            try run(
                ["req", "-new"] + config + ecKey + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", subject])
            try run(
                ["x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-days", "2"]
                    + ["-set_serial", "\(Int.random(in: 1...Int(Int32.max)))", "-out", "\(name).pem"]
                    + ["-extfile", "openssl.cnf", "-extensions", extensions])
        }
        try issue("server", subject: "/CN=127.0.0.1", extensions: "server_ext")
        try issue("wrong", subject: "/CN=wrong.example.com", extensions: "wrong_host_ext")
        try issue("client", subject: "/CN=SimpleNetworking Test Client", extensions: "client_ext")
        try run(
            ["req", "-new"] + config + ecKey + [
                "-keyout", "expired.key", "-out", "expired.csr", "-subj", "/CN=127.0.0.1",
            ])
        try run(
            ["ca", "-batch", "-notext"] + config
                + ["-cert", "ca.pem", "-keyfile", "ca.key", "-in", "expired.csr", "-out", "expired.pem"]
                + ["-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-extensions", "server_ext"])
        try run(
            ["req", "-x509"] + config + ecKey
                + [
                    "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-extensions", "self_ext",
                ])
        try run(["pkey", "-in", "server.key", "-pubout", "-outform", "DER", "-out", "server.spki"])
        try run(["dgst", "-sha256", "-binary", "-out", "server.digest", "server.spki"])
        let password = "test-password-\(UUID().uuidString)"
        try run(
            ["pkcs12", "-export", "-inkey", "client.key", "-in", "client.pem", "-out", "client.p12"]
                + ["-passout", "pass:\(password)"])

        func server(_ name: String) throws -> Server {
            Server(
                chain: try NIOSSLCertificate.fromPEMBytes(Array(run.read("\(name).pem"))),
                key: try NIOSSLPrivateKey(bytes: Array(run.read("\(name).key")), format: .pem))
        }
        let caPEM = String(decoding: try run.read("ca.pem"), as: UTF8.self)
        let selfPEM = String(decoding: try run.read("self.pem"), as: UTF8.self)
        let archive = try run.read("client.p12")
        guard let selfSignedRoot = try TLSCertificate.certificates(pem: selfPEM).first else {
            throw FixtureError(description: "the self-signed certificate is missing")
        }
        return TLSFixtures(
            caRoots: try TLSCertificate.certificates(pem: caPEM),
            caForServer: try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem),
            valid: try server("server"), validKeyDigest: try run.read("server.digest"), expired: try server("expired"),
            wrongHost: try server("wrong"),
            selfSigned: try server("self"),
            selfSignedRoot: selfSignedRoot,
            clientPEM: try TLSClientIdentity(
                certificateChain: try TLSCertificate.certificates(
                    pem: String(decoding: try run.read("client.pem"), as: UTF8.self)),
                privateKeyPEM: String(decoding: try run.read("client.key"), as: UTF8.self)),
            clientPKCS12: try TLSClientIdentity(pkcs12: archive, password: password),
            clientPKCS12WrongPassword: try TLSClientIdentity(pkcs12: archive, password: "not-the-password"))
    }
}

/// Runs `openssl` in a folder.
private struct OpenSSL {
    let folder: URL

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent(name))
    }

    func callAsFunction(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = folder
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(
                description: "openssl \(arguments.first ?? "") failed (\(process.terminationStatus)); the TLS tests "
                    + "need the openssl command: \(String(decoding: message, as: UTF8.self))")
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}
