import Foundation
import SimpleNetworking

/// An HTTPS server for ``TransportConformance``'s TLS checks, started by the caller: this library has no TLS of its
/// own, so a test brings one (Python's `ssl` module, SwiftNIO's TLS server) with certificates made for the run.
public struct TLSConformanceServer: Sendable {
    /// An `https` URL the server answers with a 2xx, over a certificate issued by ``root`` for the URL's host.
    public var url: URL
    /// The private root that issued the server's certificate; never in the system's trust store.
    public var root: TLSCertificate
    /// The SHA-256 of the server certificate's DER `SubjectPublicKeyInfo`, for the pin checks.
    public var publicKeyDigest: Data
    /// A URL on a server that requires a client certificate issued by ``root``, with ``clientIdentity`` one it
    /// accepts; `nil` skips the client-identity check.
    public var mutualTLS: (url: URL, clientIdentity: TLSClientIdentity)?
    /// A URL on a server (certificate issued by ``root``) that speaks TLS 1.2 at most; `nil` skips the
    /// minimum-version check.
    public var tls12OnlyURL: URL?

    /// Describes a server.
    /// - Parameters:
    ///   - url: An `https` URL answered with a 2xx over a certificate issued by `root`.
    ///   - root: The private root.
    ///   - publicKeyDigest: The SHA-256 of the server certificate's `SubjectPublicKeyInfo`.
    ///   - mutualTLS: A URL that requires a client certificate, and an identity it accepts. Default: none.
    ///   - tls12OnlyURL: A URL served with TLS 1.2 at most. Default: none.
    public init(
        url: URL, root: TLSCertificate, publicKeyDigest: Data,
        mutualTLS: (url: URL, clientIdentity: TLSClientIdentity)? = nil, tls12OnlyURL: URL? = nil
    ) {
        self.url = url
        self.root = root
        self.publicKeyDigest = publicKeyDigest
        self.mutualTLS = mutualTLS
        self.tls12OnlyURL = tls12OnlyURL
    }
}

extension TransportConformance {
    /// The names of the TLS checks, in the order ``run(tls:)`` runs them.
    ///
    /// Every transport: a certificate from a private root fails as `tlsFailure` under the system's policy. A
    /// transport is then held to each part of a ``TLSPolicy`` it declares in ``HTTPTransport/tlsEnforcement``, so
    /// that one that declares a part and ignores it cannot pass: the private root trusted as an additional root, and
    /// as the only root; a wrong pin fails as `tlsFailure` and the right one succeeds; a server that requires a client
    /// certificate refuses the request without one and answers with one; TLS 1.3 as the minimum fails against a
    /// TLS 1.2 server. A part the transport does not declare is refused by the client before sending, so it is not
    /// checked here.
    public static let tlsChecks = [
        "tlsPrivateRootRefused", "tlsAdditionalRoot", "tlsOnlyGivenRoots", "tlsPinMismatch", "tlsPinMatch",
        "tlsClientIdentity", "tlsMinimumVersion",
    ]

    /// Runs every TLS check against `server`, one after another, each with a fresh transport.
    /// - Parameters:
    ///   - server: The caller's HTTPS server.
    ///   - transportForPolicy: Makes a transport for the check's policy, for a transport whose TLS settings are
    ///     fixed when it is made (the URLSession transport's are: its session's); `nil`, the default, uses the kit's
    ///     factory, for a transport that takes the policy per request from ``TransportOptions/tls``. Each check sends
    ///     its policy in the options either way.
    /// - Returns: The checks that did not hold; empty when the transport conforms.
    public func run(
        tls server: TLSConformanceServer,
        transportForPolicy: (@Sendable (TLSPolicy) -> any HTTPTransport)? = nil
    ) async -> [Failure] {
        var failures: [Failure] = []
        for check in Self.tlsChecks {
            if let message = await run(check, tls: server, transportForPolicy: transportForPolicy) {
                failures.append(Failure(check: check, message: message))
            }
        }
        return failures
    }

    /// Runs one TLS check by name.
    /// - Parameters:
    ///   - check: One of ``tlsChecks``.
    ///   - server: The caller's HTTPS server.
    ///   - transportForPolicy: Makes a transport for the check's policy; see ``run(tls:transportForPolicy:)``.
    /// - Returns: What went wrong, or `nil` when the check holds or does not apply.
    public func run(
        _ check: String, tls server: TLSConformanceServer,
        transportForPolicy: (@Sendable (TLSPolicy) -> any HTTPTransport)? = nil
    ) async -> String? {
        var trusting = TLSPolicy()
        trusting.additionalTrustRoots = [server.root]
        let make: @Sendable (TLSPolicy) -> (any HTTPTransport)?
        if let transportForPolicy {
            make = transportForPolicy
        } else {
            make = { [makeTransport] _ in
                guard let placeholder = try? MockServer() else { return nil }
                defer { placeholder.shutdown() }
                return makeTransport(placeholder)
            }
        }
        // Which parts the transport declares, from one made with no policy.
        guard let probe = make(.system) else { return "MockServer could not start" }
        let declared = probe.tlsEnforcement
        probe.close()
        switch check {
        case "tlsPrivateRootRefused":
            return await expectTLSFailure(make, server.url, .system)
        case "tlsAdditionalRoot":
            guard declared.contains(.additionalTrustRoots) else { return nil }
            return await expectSuccess(make, server.url, trusting)
        case "tlsOnlyGivenRoots":
            guard declared.isSuperset(of: [.additionalTrustRoots, .onlyAdditionalTrustRoots]) else { return nil }
            trusting.trustsOnlyAdditionalRoots = true
            return await expectSuccess(make, server.url, trusting)
        case "tlsPinMismatch", "tlsPinMatch":
            guard declared.isSuperset(of: [.additionalTrustRoots, .publicKeyPins]), let host = server.url.host else {
                return nil
            }
            let digest = check == "tlsPinMatch" ? server.publicKeyDigest : Data(repeating: 0, count: 32)
            do {
                trusting.pins = [try PublicKeyPins(host: host, digests: [digest])]
            } catch {
                return "the server's digest is not 32 bytes: \(error)"
            }
            return check == "tlsPinMatch"
                ? await expectSuccess(make, server.url, trusting)
                : await expectTLSFailure(make, server.url, trusting)
        case "tlsClientIdentity":
            guard let (url, identity) = server.mutualTLS, declared.contains(.additionalTrustRoots) else { return nil }
            let format: TLSRequirements
            switch identity.format {
            case .pem: format = .clientIdentityPEM
            case .pkcs12: format = .clientIdentityPKCS12
            }
            guard declared.contains(format) else { return nil }
            if case .success(let response) = await send(make, url, trusting) {
                return "without a client certificate the server answered \(response.statusCode)"
            }
            trusting.clientIdentity = identity
            return await expectSuccess(make, url, trusting)
        case "tlsMinimumVersion":
            guard let url = server.tls12OnlyURL, declared.isSuperset(of: [.additionalTrustRoots, .minimumVersion])
            else { return nil }
            trusting.minimumVersion = .tls13
            return await expectTLSFailure(make, url, trusting)
        default:
            return "no such check"
        }
    }

    private func expectSuccess(
        _ make: @Sendable (TLSPolicy) -> (any HTTPTransport)?, _ url: URL, _ policy: TLSPolicy
    ) async -> String? {
        switch await send(make, url, policy) {
        case .success(let response):
            return (200..<300).contains(response.statusCode) ? nil : "expected a 2xx, got \(response.statusCode)"
        case .failure(let error):
            return "expected a 2xx with \(policy.requirements(forHost: url.host)), got \(error)"
        }
    }

    private func expectTLSFailure(
        _ make: @Sendable (TLSPolicy) -> (any HTTPTransport)?, _ url: URL, _ policy: TLSPolicy
    ) async -> String? {
        switch await send(make, url, policy) {
        case .success(let response):
            return "expected tlsFailure, got \(response.statusCode): a policy was ignored"
        case .failure(let error):
            guard case .transportFailed(let failure, _) = error, failure.category == .tlsFailure else {
                return "expected tlsFailure, got \(error)"
            }
            return nil
        }
    }

    /// Sends a GET of `url` with `policy` in the options, on a fresh transport made for `policy`.
    private func send(_ make: @Sendable (TLSPolicy) -> (any HTTPTransport)?, _ url: URL, _ policy: TLSPolicy) async
        -> Result<SimpleResponse, SimpleNetworkingError>
    {
        guard let transport = make(policy) else {
            return .failure(.transportFailed(TransportFailure(.other, detail: "MockServer could not start")))
        }
        defer { transport.close() }
        do throws(SimpleNetworkingError) {
            let options = TransportOptions(timeout: 20, tls: policy)
            return .success(try await transport.send(HTTPRequest(method: .get, url: url), options: options))
        } catch {
            return .failure(error)
        }
    }
}
