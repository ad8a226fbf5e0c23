import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A TLS policy a transport cannot enforce is refused before anything is sent, naming the transport and the part;
/// plain `http` and hosts no pin applies to are not affected (<doc:TLS>).
@Suite("TLS policy refusals")
struct TLSRefusalTests {
    static let certificate = Data([0x30, 0x02, 0x05, 0x00])
    static let pin = "sha256/" + Data(repeating: 7, count: 32).base64EncodedString()

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    /// One policy per part, each asking for that part alone.
    static func policies() throws -> [(TLSRequirements, TLSPolicy)] {
        var roots = TLSPolicy()
        roots.additionalTrustRoots = [try TLSCertificate(der: certificate)]
        var only = roots
        only.trustsOnlyAdditionalRoots = true
        var pins = TLSPolicy()
        pins.pins = [try PublicKeyPins(host: "**.example.com", [pin])]
        var pem = TLSPolicy()
        pem.clientIdentity = try TLSClientIdentity(
            certificateChain: [TLSCertificate(der: certificate)],
            privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")
        var pkcs12 = TLSPolicy()
        pkcs12.clientIdentity = try TLSClientIdentity(pkcs12: Data([0x30, 0x01, 0x00]), password: "secret")
        var version = TLSPolicy()
        version.minimumVersion = .tls13
        return [
            (.additionalTrustRoots, roots), (.onlyAdditionalTrustRoots, only), (.publicKeyPins, pins),
            (.clientIdentityPEM, pem), (.clientIdentityPKCS12, pkcs12), (.minimumVersion, version),
        ]
    }

    @Test("A transport that enforces no TLS policy refuses each part on HTTPS, before sending")
    func mockTransportRefusesEachPart() async throws {
        for (part, policy) in try Self.policies() {
            let (api, transport) = makeMockClient { $0.tls = policy }
            transport.route { _ in .init(.success(SimpleResponse(statusCode: 200))) }

            let error = await failure(of: api.get("/secure"))

            guard case .unsupportedByTransport(let reason)? = error else {
                Issue.record("\(part): \(String(describing: error))")
                continue
            }
            #expect(reason.contains("MockTransport") && reason.contains(part.description), "\(reason)")
            #expect(!reason.contains("secret"), "\(reason)")
            #expect(transport.requests.isEmpty, "\(part): nothing is sent")
            // Plain http is not affected by a TLS policy.
            #expect(
                await failure(of: api.request(.get, url: try Self.url("http://api.example.com/plain"))) == nil,
                "\(part)")
        }
    }

    @Test("Pins apply only to the hosts their patterns match")
    func pinsForOtherHosts() async throws {
        let pins = try PublicKeyPins(host: "pinned.example.com", [Self.pin])
        let (api, transport) = makeMockClient { $0.tls.pins = [pins] }
        transport.route { _ in .init(.success(SimpleResponse(statusCode: 200))) }

        #expect(await failure(of: api.request(.get, url: try Self.url("https://other.example.com/x"))) == nil)
        let error = await failure(of: api.request(.get, url: try Self.url("https://pinned.example.com/x")))
        #expect(error?.isUnsupportedByTransport == true, "\(String(describing: error))")
        #expect(transport.requests.count == 1)
    }

    @Test("A redirect to a pinned host is refused at that hop, before it is sent")
    func redirectToPinnedHost() async throws {
        let pins = try PublicKeyPins(host: "pinned.example.com", [Self.pin])
        let (api, transport) = makeMockClient { $0.tls.pins = [pins] }
        transport.route { request in
            request.url.host == "pinned.example.com"
                ? .init(.success(SimpleResponse(statusCode: 200)))
                : .init(.success(SimpleResponse(statusCode: 302, headers: ["Location": "https://pinned.example.com/"])))
        }

        let error = await failure(of: api.get("/start"))

        #expect(error?.isUnsupportedByTransport == true, "\(String(describing: error))")
        #expect(transport.requests.map { $0.url.host } == ["api.example.com"])
    }

    @Test("URLSession names itself and each part it cannot enforce, and sends nothing")
    func urlSessionRefuses() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let https = try #require(URL(string: "https://127.0.0.1:\(server.port)"))
        for (part, policy) in try Self.policies() {
            let api = makeLoopbackClient(https) { $0.tls = policy }
            defer { api.close() }
            let missing = policy.requirements(forHost: "127.0.0.1").subtracting(api.transport.tlsEnforcement)
            guard !missing.isEmpty else { continue }

            let error = await failure(of: api.get("/secure"))

            guard case .unsupportedByTransport(let reason)? = error else {
                Issue.record("\(part): \(String(describing: error))")
                continue
            }
            #if canImport(FoundationNetworking)
                #expect(reason.contains("URLSession on Linux"), "\(reason)")
            #else
                #expect(reason.contains("URLSession"), "\(reason)")
            #endif
            #expect(reason.contains(missing.description), "\(reason)")
        }
        #expect(server.requestCount == 0)
    }
}

extension SimpleNetworkingError {
    fileprivate var isUnsupportedByTransport: Bool {
        if case .unsupportedByTransport = self { return true }
        return false
    }
}

/// The conformance kit's TLS checks (<doc:TLS>) against the URLSession transport, over loopback TLS with a certificate
/// from a root made for the run.
@Suite("TLS conformance over URLSession")
struct URLSessionTLSConformanceTests {
    @Test(
        "URLSession passes the TLS checks: a private root fails under the system's policy, and every declared part holds",
        .enabled(if: TLSTestServer.isAvailable, "openssl or python3 is not installed"))
    func conformance() async throws {
        let declared = URLSessionTransport(configuration: SimpleNetworking.Configuration()).tlsEnforcement
        // One connection per check that runs, so that the server exits when the last one is done.
        let rooted = declared.contains(.additionalTrustRoots)
        let connections =
            1 + (rooted ? 1 : 0) + (rooted && declared.contains(.onlyAdditionalTrustRoots) ? 1 : 0)
            + (rooted && declared.contains(.publicKeyPins) ? 2 : 0)
        let server = try await TLSTestServer.issuedByPrivateRoot(connections: connections)
        let root = try #require(server.root)
        #expect(server.publicKeyDigest.count == 32)
        let fixture = TLSConformanceServer(
            url: server.baseURL, root: root, publicKeyDigest: server.publicKeyDigest)

        let failures = await TransportConformance { _ in
            URLSessionTransport(configuration: SimpleNetworking.Configuration())
        }.run(tls: fixture) { policy in
            var configuration = SimpleNetworking.Configuration()
            configuration.tls = policy
            return URLSessionTransport(configuration: configuration)
        }

        #expect(failures.isEmpty, "\(failures)")
        await server.finish()
    }

    @Test(
        "A transport that declares parts of the policy and ignores them fails the TLS checks",
        .enabled(if: TLSTestServer.isAvailable, "openssl or python3 is not installed"))
    func declaredButIgnored() async throws {
        // 1 + additional root + only given roots + two pin checks.
        let server = try await TLSTestServer.issuedByPrivateRoot(connections: 5)
        let fixture = TLSConformanceServer(
            url: server.baseURL, root: try #require(server.root), publicKeyDigest: server.publicKeyDigest)

        let failures = await TransportConformance { _ in
            ClaimsEverything(base: URLSessionTransport(configuration: SimpleNetworking.Configuration()))
        }.run(tls: fixture)

        #expect(Set(failures.map(\.check)) == ["tlsAdditionalRoot", "tlsOnlyGivenRoots", "tlsPinMatch"], "\(failures)")
        await server.finish()
    }
}

/// A transport that claims to enforce every part of a TLS policy and enforces none: it sends with the system's.
private struct ClaimsEverything: HTTPTransport {
    let base: URLSessionTransport
    var capabilities: TransportCapabilities { base.capabilities }
    var tlsEnforcement: TLSRequirements { .all }

    func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        var options = options
        options.tls = .system
        return try await base.send(request, options: options, transfer: transfer)
    }

    func close() { base.close() }
}
