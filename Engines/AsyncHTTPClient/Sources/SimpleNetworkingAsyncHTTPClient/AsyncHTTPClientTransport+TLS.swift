import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SimpleNetworking

extension AsyncHTTPClientTransport {
    /// The parts of a TLS policy the engine enforces on the event loops of `group`.
    ///
    /// Over SwiftNIO's sockets (every group on Linux, a `MultiThreadedEventLoopGroup` on Apple platforms) connections
    /// use NIOSSL, where a request's `TLSConfiguration` holds every part but pins: AsyncHTTPClient has no
    /// certificate-verification callback to check them with. On Apple platforms AsyncHTTPClient's default group runs
    /// on Network.framework, where it turns the configuration into Network.framework's options: it drops additional
    /// trust roots and stops the process for a client certificate, so there only the minimum version is enforced.
    static func tlsEnforcement(on group: any EventLoopGroup) -> TLSRequirements {
        #if canImport(Network)
            guard group is MultiThreadedEventLoopGroup else { return [.minimumVersion] }
        #endif
        return [
            .additionalTrustRoots, .onlyAdditionalTrustRoots, .clientIdentityPEM, .clientIdentityPKCS12,
            .minimumVersion,
        ]
    }

}

/// The NIOSSL `TLSConfiguration` of each TLS policy a transport has sent with, made once per policy: a request
/// does not rebuild it, and AsyncHTTPClient, which keys its connection pools and its cache of SSL contexts by the
/// configuration, finds the same one each time. A policy that cannot be made into one is remembered with its error.
final class TLSConfigurations: Sendable {
    private struct Entry {
        let policy: TLSPolicy
        let result: Result<TLSConfiguration, SimpleNetworkingError>
    }

    /// The last policies used, newest last; a client has one policy, so the first comparison finds it.
    private let entries = NIOLockedValueBox<[Entry]>([])
    private static let capacity = 8

    /// The configuration for an HTTPS request to `host` under `policy`, or `nil` for the platform's defaults, which
    /// leaves the client's own.
    /// - Throws: ``SimpleNetworkingError/unsupportedByTransport(reason:)`` when the policy asks for a part outside
    ///   `enforced` (the client refuses such a request before it reaches the transport; this guards a direct call),
    ///   ``SimpleNetworkingError/invalidRequest(reason:)`` when a root or the client identity cannot be read.
    func configuration(for policy: TLSPolicy, host: String?, enforced: TLSRequirements)
        throws(SimpleNetworkingError) -> TLSConfiguration?
    {
        let missing = policy.requirements(forHost: host).subtracting(enforced)
        guard missing.isEmpty else {
            throw .unsupportedByTransport(
                reason: "AsyncHTTPClientTransport cannot enforce \(missing) of the TLS policy; nothing was sent")
        }
        // Pins are not part of a configuration: with none for this host, it is made without them.
        var key = policy
        key.pins = []
        if key.isSystemDefault { return nil }
        let found = entries.withLockedValue { entries in entries.last { $0.policy == key }?.result }
        if let found { return try found.get() }
        let made = Result { () throws(SimpleNetworkingError) in try Self.make(key) }
        entries.withLockedValue { entries in
            if entries.count == Self.capacity { entries.removeFirst() }
            entries.append(Entry(policy: key, result: made))
        }
        return try made.get()
    }

    /// A client configuration of NIOSSL's defaults (full verification, the system's roots, TLS 1.2 and later) with
    /// the policy's roots, client identity and minimum version, checked by making an SSL context from it.
    static func make(_ policy: TLSPolicy) throws(SimpleNetworkingError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        var roots: [NIOSSLCertificate] = []
        for (index, root) in policy.additionalTrustRoots.enumerated() {
            guard let certificate = try? NIOSSLCertificate(bytes: Array(root.der), format: .der) else {
                throw .invalidRequest(
                    reason: "trust root \(index + 1) of the TLS policy is not an X.509 certificate BoringSSL can read")
            }
            roots.append(certificate)
        }
        if policy.trustsOnlyAdditionalRoots {
            configuration.trustRoots = .certificates(roots)
        } else if !roots.isEmpty {
            configuration.additionalTrustRoots = [.certificates(roots)]
        }
        if let identity = policy.clientIdentity {
            let (chain, key) = try clientIdentity(identity)
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(key)
        }
        switch policy.minimumVersion {
        case .tls13?: configuration.minimumTLSVersion = .tlsv13
        case .tls12?: configuration.minimumTLSVersion = .tlsv12
        case nil: break
        }
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            let reasons = TLSFailureReason.reasonNames(of: error)
            let keyMismatch = reasons.contains { $0.contains("KEY_VALUES_MISMATCH") }
            throw .invalidRequest(
                reason: keyMismatch
                    ? "the TLS policy's client identity: the private key is not the key of the first certificate"
                    : "the TLS policy cannot be made into a TLS configuration (BoringSSL: "
                        + "\(reasons.isEmpty ? "no reason given" : reasons.joined(separator: ", ")))")
        }
        return configuration
    }

    /// The certificate chain and private key of `identity`; never the key or the password in an error.
    private static func clientIdentity(_ identity: TLSClientIdentity) throws(SimpleNetworkingError) -> (
        [NIOSSLCertificate], NIOSSLPrivateKey
    ) {
        switch identity.format {
        case .pem(let chain, let privateKeyPEM):
            var certificates: [NIOSSLCertificate] = []
            for (index, link) in chain.enumerated() {
                guard let certificate = try? NIOSSLCertificate(bytes: Array(link.der), format: .der) else {
                    throw .invalidRequest(
                        reason: "certificate \(index + 1) of the TLS policy's client identity is not an X.509 "
                            + "certificate BoringSSL can read")
                }
                certificates.append(certificate)
            }
            guard let key = try? NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem) else {
                throw .invalidRequest(
                    reason: "the private key of the TLS policy's client identity cannot be read (an encrypted key, "
                        + "or not an RSA or EC key in PEM)")
            }
            return (certificates, key)
        case .pkcs12(let archive, let password):
            guard let bundle = try? NIOSSLPKCS12Bundle(buffer: Array(archive), passphrase: Array(password.utf8))
            else {
                throw .invalidRequest(
                    reason: "the TLS policy's PKCS #12 client identity cannot be opened: a wrong password, or an "
                        + "archive BoringSSL cannot read")
            }
            guard !bundle.certificateChain.isEmpty else {
                throw .invalidRequest(reason: "the TLS policy's PKCS #12 client identity holds no certificate")
            }
            return (bundle.certificateChain, bundle.privateKey)
        }
    }
}
