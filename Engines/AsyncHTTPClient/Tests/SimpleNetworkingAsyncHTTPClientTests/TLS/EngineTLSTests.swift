import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

/// The TLS policy over real TLS on loopback: a NIOSSL server in the test process, certificates made by `openssl` for
/// the run (`TLSFixtures`).
@Suite("TLS policy on the AsyncHTTPClient engine")
struct EngineTLSTests {
    /// A client over a new engine, with `policy`, no retries.
    private static func client(
        _ server: NIOTLSTestServer, _ policy: TLSPolicy = .system,
        transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()
    ) -> SimpleNetworking {
        var configuration = SimpleNetworking.Configuration()
        configuration.tls = policy
        configuration.retryPolicy = .never
        return SimpleNetworking(baseURL: server.url(), transport: transport, configuration: configuration)
    }

    private static func trusting(_ roots: [TLSCertificate], only: Bool = false) -> TLSPolicy {
        var policy = TLSPolicy()
        policy.additionalTrustRoots = roots
        policy.trustsOnlyAdditionalRoots = only
        return policy
    }

    /// The TLS failure of a request to `server` under `policy`, or an issue when there was none.
    private static func tlsFailure(
        _ server: NIOTLSTestServer, _ policy: TLSPolicy = .system,
        transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()
    ) async -> TransportFailure? {
        let api = client(server, policy, transport: transport)
        defer { api.close() }
        do throws(SimpleNetworkingError) {
            let response = try await api.get("/").response()
            Issue.record("expected a TLS failure, got \(response.statusCode)")
            return nil
        } catch {
            guard let failure = error.transportFailure, failure.category == .tlsFailure else {
                Issue.record("expected a tlsFailure, got \(error)")
                return nil
            }
            return failure
        }
    }

    @Test("The engine passes the conformance kit's TLS checks: every part it declares holds")
    func conformance() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        let mutual = try await NIOTLSTestServer(certificate: fixtures.valid, clientCA: fixtures.caForServer)
        let old = try await NIOTLSTestServer(certificate: fixtures.valid, maximumVersion: .tlsv12)
        let root = try #require(fixtures.caRoots.first)
        let fixture = TLSConformanceServer(
            url: server.url(), root: root, publicKeyDigest: fixtures.validKeyDigest,
            mutualTLS: (mutual.url(), fixtures.clientPKCS12), tls12OnlyURL: old.url())

        let failures = await TransportConformance { _ in AsyncHTTPClientTransport() }.run(tls: fixture)

        #expect(failures.isEmpty, "\(failures)")
        #expect(server.seen.connections >= 2, "the private root refused, then trusted")
        for server in [server, mutual, old] { await server.stop() }
    }

    @Test("A server certificate from a private CA is trusted once the CA is an additional root")
    func additionalRoot() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        let api = Self.client(server, Self.trusting(fixtures.caRoots))
        defer { api.close() }
        let response = try await api.get("/hello").response()
        #expect(response.statusCode == 200 && response.string == "ok")
        await server.stop()
    }

    @Test("Without the CA the issuer is unknown: tlsFailure that names the certificate check")
    func unknownIssuer() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        let failure = await Self.tlsFailure(server)
        let detail = failure?.detail ?? ""
        #expect(detail.hasPrefix("certificate not trusted"), "\(detail)")
        #expect(detail.contains("unknown issuer") && detail.contains("CERTIFICATE_VERIFY_FAILED"), "\(detail)")
        #expect(failure?.description.contains("additionalTrustRoots") == true)
        await server.stop()
    }

    @Test("An expired certificate from a trusted CA fails the certificate check")
    func expired() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.expired)
        let detail = await Self.tlsFailure(server, Self.trusting(fixtures.caRoots))?.detail ?? ""
        #expect(detail.hasPrefix("certificate not trusted") && detail.contains("expired"), "\(detail)")
        await server.stop()
    }

    @Test("A certificate for another host is a host name mismatch")
    func wrongHost() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.wrongHost)
        let detail = await Self.tlsFailure(server, Self.trusting(fixtures.caRoots))?.detail ?? ""
        #expect(detail.hasPrefix("host name mismatch"), "\(detail)")
        await server.stop()
    }

    @Test("A self-signed certificate fails, and is trusted when it is given as a root")
    func selfSigned() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.selfSigned)
        let detail = await Self.tlsFailure(server)?.detail ?? ""
        #expect(detail.hasPrefix("certificate not trusted") && detail.contains("self-signed"), "\(detail)")
        let api = Self.client(server, Self.trusting([fixtures.selfSignedRoot]))
        defer { api.close() }
        #expect(try await api.get("/").response().statusCode == 200)
        await server.stop()
    }

    @Test("Trusting only the given roots: the CA's server passes, and a server of another root fails")
    func onlyGivenRoots() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        let api = Self.client(server, Self.trusting(fixtures.caRoots, only: true))
        defer { api.close() }
        #expect(try await api.get("/").response().statusCode == 200)
        let detail = await Self.tlsFailure(server, Self.trusting([fixtures.selfSignedRoot], only: true))?.detail
        #expect(detail?.hasPrefix("certificate not trusted") == true, "\(detail ?? "")")
        await server.stop()
    }

    @Test("A pinned host is refused before anything is sent: the server sees no connection")
    func pinsRefused() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        var policy = Self.trusting(fixtures.caRoots)
        policy.pins = [try PublicKeyPins(host: "127.0.0.1", digests: [Data(repeating: 7, count: 32)])]
        let api = Self.client(server, policy)
        defer { api.close() }
        do throws(SimpleNetworkingError) {
            _ = try await api.get("/").response()
            Issue.record("a pinned request was sent")
        } catch {
            guard case .unsupportedByTransport(let reason) = error else {
                Issue.record("expected unsupportedByTransport, got \(error)")
                return
            }
            #expect(reason.contains("AsyncHTTPClientTransport") && reason.contains("public-key pins"), "\(reason)")
        }
        // The transport refuses it too when called directly.
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        let options = TransportOptions(timeout: 10, tls: policy)
        await #expect(throws: SimpleNetworkingError.self) {
            try await transport.send(HTTPRequest(method: .get, url: server.url()), options: options)
        }
        #expect(server.seen.connections == 0)
        // Pins for other hosts do not apply to this one.
        policy.pins = [try PublicKeyPins(host: "*.example.com", digests: [Data(repeating: 7, count: 32)])]
        let other = Self.client(server, policy)
        defer { other.close() }
        #expect(try await other.get("/").response().statusCode == 200)
        await server.stop()
    }

    @Test(
        "A server that requires a client certificate gets one from PEM and from PKCS #12",
        arguments: ["PEM", "PKCS #12"])
    func clientCertificate(form: String) async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid, clientCA: fixtures.caForServer)
        var policy = Self.trusting(fixtures.caRoots)
        policy.clientIdentity = form == "PEM" ? fixtures.clientPEM : fixtures.clientPKCS12
        let api = Self.client(server, policy)
        defer { api.close() }
        #expect(try await api.get("/").response().statusCode == 200)
        await server.stop()
    }

    /// A client over HTTP/1.1 only: over HTTP/2, AsyncHTTPClient reports a TLS alert that comes after the handshake
    /// (TLS 1.3's client certificate check) as the connection closing (`clientCertificateRefusalOverHTTP2`).
    private static func http1Only() -> AsyncHTTPClientTransport {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.allowsHTTP2 = false
        return AsyncHTTPClientTransport(configuration: configuration)
    }

    @Test("Without a client certificate the server's refusal says one is required")
    func clientCertificateMissing() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid, clientCA: fixtures.caForServer)
        let detail = await Self.tlsFailure(server, Self.trusting(fixtures.caRoots), transport: Self.http1Only())?.detail
        #expect(detail?.hasPrefix("client certificate required") == true, "\(detail ?? "")")
        await server.stop()
    }

    @Test("A client certificate the server does not trust is rejected")
    func clientCertificateRejected() async throws {
        let fixtures = try await TLSFixtures.shared.value
        // The server trusts only the self-signed certificate for clients, not the CA that issued the client's.
        let other = try #require(fixtures.selfSigned.chain.first)
        let server = try await NIOTLSTestServer(certificate: fixtures.valid, clientCA: other)
        var policy = Self.trusting(fixtures.caRoots)
        policy.clientIdentity = fixtures.clientPEM
        let detail = await Self.tlsFailure(server, policy, transport: Self.http1Only())?.detail ?? ""
        #expect(detail.hasPrefix("client certificate rejected"), "\(detail)")
        await server.stop()
    }

    @Test("Over HTTP/2 the refusal of a missing client certificate arrives as the connection closing, and says so")
    func clientCertificateRefusalOverHTTP2() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid, clientCA: fixtures.caForServer)
        let api = Self.client(server, Self.trusting(fixtures.caRoots))
        defer { api.close() }
        do throws(SimpleNetworkingError) {
            _ = try await api.get("/").response()
            Issue.record("the server answered without a client certificate")
        } catch {
            let failure = error.transportFailure
            #expect(failure?.category == .badServerResponse, "\(error)")
            #expect(failure?.detail?.contains("client certificate") == true, "\(error)")
        }
        await server.stop()
    }

    @Test("A PKCS #12 identity with a wrong password is an invalid request; nothing is sent")
    func wrongPKCS12Password() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        var policy = Self.trusting(fixtures.caRoots)
        policy.clientIdentity = fixtures.clientPKCS12WrongPassword
        let api = Self.client(server, policy)
        defer { api.close() }
        do throws(SimpleNetworkingError) {
            _ = try await api.get("/").response()
            Issue.record("the request was sent")
        } catch {
            guard case .invalidRequest(let reason) = error else {
                Issue.record("expected invalidRequest, got \(error)")
                return
            }
            #expect(reason.contains("PKCS #12") && !reason.contains("not-the-password"), "\(reason)")
        }
        #expect(server.seen.connections == 0)
        await server.stop()
    }

    @Test("A minimum of TLS 1.3 refuses a TLS 1.2-only server, which TLS 1.2 reaches")
    func minimumVersion() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid, maximumVersion: .tlsv12)
        var policy = Self.trusting(fixtures.caRoots)
        policy.minimumVersion = .tls12
        let api = Self.client(server, policy)
        defer { api.close() }
        #expect(try await api.get("/").response().statusCode == 200)
        policy.minimumVersion = .tls13
        let detail = await Self.tlsFailure(server, policy)?.detail ?? ""
        #expect(detail.hasPrefix("protocol version refused"), "\(detail)")
        await server.stop()
    }

    @Test("HTTP/2: concurrent requests share a connection per event loop, and the response and attempt record it")
    func http2SharesOneConnection() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid, responseDelay: .milliseconds(200))
        let api = Self.client(server, Self.trusting(fixtures.caRoots))
        defer { api.close() }
        let first = try await api.get("/first").response()
        #expect(first.httpVersion == .http2 && first.attempts.last?.httpVersion == .http2)
        let count = 20
        let versions = try await withThrowingTaskGroup(of: HTTPProtocolVersion?.self) { group in
            for index in 0..<count {
                group.addTask { try await api.get("/\(index)").response().attempts.last?.httpVersion }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(versions == Array(repeating: .http2, count: count))
        let seen = server.seen
        // The transport spreads concurrent requests over its clients, one per event loop of the group (at most 8),
        // each with a connection of its own; more requests open at once than connections: they shared them.
        let loops = min(Array(HTTPClient.defaultEventLoopGroup.makeIterator()).count, 8)
        #expect(seen.connections <= loops, "\(seen.connections) connections for \(loops) event loops")
        #expect(seen.requests == Array(repeating: "HTTP/2", count: count + 1))
        #expect(
            seen.mostOpenAtOnce > seen.connections,
            "requests open at once: \(seen.mostOpenAtOnce) on \(seen.connections) connections")
        await server.stop()
    }

    @Test("With HTTP/2 off the same server answers over HTTP/1.1")
    func http2Off() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.allowsHTTP2 = false
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let api = Self.client(server, Self.trusting(fixtures.caRoots), transport: transport)
        defer { api.close() }
        let response = try await api.get("/").response()
        #expect(response.httpVersion == .http11 && response.attempts.last?.httpVersion == .http11)
        #expect(server.seen.requests == ["HTTP/1.1"])
        await server.stop()
    }

    @Test("One policy keeps one pool: a second request reuses the connection, another policy opens its own")
    func poolPerPolicy() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        let policy = Self.trusting(fixtures.caRoots)
        let request = HTTPRequest(method: .get, url: server.url())
        for _ in 0..<3 {
            _ = try await transport.send(request, options: TransportOptions(timeout: 10, tls: policy))
        }
        #expect(server.seen.connections == 1)
        var other = policy
        other.minimumVersion = .tls12
        _ = try await transport.send(request, options: TransportOptions(timeout: 10, tls: other))
        #expect(server.seen.connections == 2)
        await server.stop()
    }

    @Test("Five policies: the first four through clients of their own, the fifth per request; shutdown closes all")
    func manyPolicies() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        let transport = AsyncHTTPClientTransport()
        let request = HTTPRequest(method: .get, url: server.url())
        // Five policies that differ only in how often they list the root.
        let policies = (1...5).map { Self.trusting(Array(repeating: fixtures.caRoots, count: $0).flatMap { $0 }) }
        for policy in policies + policies {
            let response = try await transport.send(request, options: TransportOptions(timeout: 10, tls: policy))
            #expect(response.statusCode == 200)
        }
        #expect(server.seen.connections == 5, "one connection per policy, reused: \(server.seen.connections)")
        try await transport.shutdown()
        for policy in [policies[0], policies[4]] {
            do {
                _ = try await transport.send(request, options: TransportOptions(timeout: 10, tls: policy))
                Issue.record("a request after shutdown() was answered")
            } catch {
                #expect(error.transportFailure?.detail?.contains("closed") == true, "\(error)")
            }
        }
        await server.stop()
    }

    @Test("An HTTPClient of the user's: the policy is enforced, and closing the transport leaves the client running")
    func ownClient() async throws {
        let fixtures = try await TLSFixtures.shared.value
        let server = try await NIOTLSTestServer(certificate: fixtures.valid)
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup,
            configuration: AsyncHTTPClientTransport.clientConfiguration())
        let transport = AsyncHTTPClientTransport(client: client)
        #expect(transport.tlsEnforcement == AsyncHTTPClientTransport().tlsEnforcement)
        #expect(!transport.tlsEnforcement.contains(.publicKeyPins))
        let api = Self.client(server, Self.trusting(fixtures.caRoots), transport: transport)
        #expect(try await api.get("/").response().statusCode == 200)
        try await transport.shutdown()
        api.close()
        // The client still works after the transport's shutdown, through a new transport; its owner shuts it down.
        let again = Self.client(
            server, Self.trusting(fixtures.caRoots), transport: AsyncHTTPClientTransport(client: client))
        #expect(try await again.get("/").response().statusCode == 200)
        again.close()
        try await client.shutdown()
        await server.stop()
    }
}
