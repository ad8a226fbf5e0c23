import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#endif
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Security)
    import Security
#endif

/// The TLS policy of one URLSession transport, fixed when its session is made, and how its session delegate
/// answers TLS challenges with it.
///
/// URLSession evaluates trust once per connection and keeps connections for later requests, and its minimum TLS
/// version is a setting of the session's configuration: so the whole policy belongs to the session. The library's own
/// session takes the client's ``SimpleNetworking/Configuration/tls`` when it is made; a request whose
/// ``TransportOptions/tls`` asks for something else of an HTTPS host is refused before anything is sent
/// (``refusal(of:for:ownsSession:)``).
///
/// On Apple platforms the delegate enforces every part but a client identity from PEM: a server-trust challenge is
/// evaluated with the policy's roots, then its pins; a client-certificate challenge is answered with the identity of
/// the policy's PKCS #12 archive. A failed check cancels the challenge and the attempt fails with
/// ``TransportFailure/Category/tlsFailure`` and a detail naming the check (``TLSCheckFailure``). On Linux,
/// FoundationNetworking never asks its delegate about TLS and uses the system's trust store: nothing is enforced.
final class SessionTLS: @unchecked Sendable {
    // @unchecked Sendable: `policy` is immutable; the imported client identity is behind `lock`.
    /// The policy every HTTPS connection of the session is held to.
    let policy: TLSPolicy

    /// The parts the transport enforces on the library's own session.
    static var enforcement: TLSRequirements {
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            return []
        #else
            // A PEM key cannot be paired with its certificate into a `SecIdentity` without the keychain.
            return TLSRequirements.all.subtracting(.clientIdentityPEM)
        #endif
    }

    /// A session's policy.
    /// - Parameter policy: The client's ``SimpleNetworking/Configuration/tls``; ``TLSPolicy/system`` for a session
    ///   the caller made, whose delegate is not the library's.
    init(policy: TLSPolicy = .system) {
        self.policy = policy
    }

    /// Why a request whose options ask for `requested` cannot be sent on this session, or `nil`.
    ///
    /// Equal policies pass at once; otherwise a plain `http` request passes, and so does one to a host for which
    /// neither policy asks for anything (pins for other hosts only).
    /// - Parameters:
    ///   - requested: The request's ``TransportOptions/tls``.
    ///   - request: The request.
    ///   - ownsSession: Whether the session is the library's own.
    /// - Returns: The reason for ``SimpleNetworkingError/unsupportedByTransport(reason:)``.
    func refusal(of requested: TLSPolicy, for request: HTTPRequest, ownsSession: Bool) -> String? {
        // The scheme first: a plain request costs no comparison of policies.
        guard request.url.scheme?.equalsIgnoringASCIICase("https") == true, requested != policy else { return nil }
        let host = request.url.host
        let asked = requested.requirements(forHost: host)
        guard !asked.isEmpty || !policy.requirements(forHost: host).isEmpty else { return nil }
        guard ownsSession else {
            return "a URLSession the caller made enforces no TLS policy (its delegate is not the library's); "
                + "nothing was sent: leave out `session:` to have the library's own session enforce it"
        }
        return "URLSession's TLS settings are fixed when its session is made, from the client's configuration.tls; "
            + "this request asks for another TLS policy, which the session cannot enforce; nothing was sent"
    }

    /// What a refusal of `missing` parts adds for URLSession, or `nil`.
    /// - Parameters:
    ///   - missing: The parts of the client's policy the transport does not enforce.
    ///   - ownsSession: Whether the session is the library's own.
    /// - Returns: The hint, without punctuation around it.
    static func refusalHint(for missing: TLSRequirements, ownsSession: Bool) -> String? {
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            return nil
        #else
            guard ownsSession else {
                return "a URLSession the caller made enforces no TLS policy (its delegate is not the library's); "
                    + "leave out `session:` to have the library's own session enforce it"
            }
            guard missing.contains(.clientIdentityPEM) else { return nil }
            return "URLSession on Apple platforms takes a client identity as PKCS #12 only, since pairing a PEM key "
                + "with its certificate needs the keychain: bundle them with `openssl pkcs12 -export` and use "
                + "TLSClientIdentity(pkcs12:password:)"
        #endif
    }

    #if !canImport(FoundationNetworking) || APPLE_BRANCH_CHECK
        /// The imported client identity, once a server has asked for it: imported at most once per session.
        private let lock = NSLock()
        private var importedIdentity: Result<URLCredential, TLSCheckFailure>?

        /// Sets the policy's minimum TLS version on the configuration of the library's own session.
        /// - Parameter configuration: The session's configuration, before the session is made.
        func configure(_ configuration: URLSessionConfiguration) {
            guard let minimum = policy.minimumVersion else { return }
            configuration.tlsMinimumSupportedProtocolVersion = minimum == .tls13 ? .TLSv13 : .TLSv12
        }

        /// How to answer `challenge`: server trust and client certificates by the policy, any other method as
        /// before (default handling: an HTTP authentication challenge is never answered with a credential).
        /// - Parameter challenge: The challenge the session's delegate received.
        /// - Returns: The disposition and credential for the completion handler, and the failed check, if one
        ///   failed: the caller ends the attempt with it before cancelling the challenge.
        func answer(_ challenge: URLAuthenticationChallenge) -> (
            disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?, failure: TLSCheckFailure?
        ) {
            let space = challenge.protectionSpace
            switch space.authenticationMethod {
            case NSURLAuthenticationMethodServerTrust:
                let usesRoots = !policy.additionalTrustRoots.isEmpty || policy.trustsOnlyAdditionalRoots
                let pins = policy.pinnedKeyDigests(forHost: space.host)
                guard usesRoots || !pins.isEmpty, let trust = space.serverTrust else {
                    return (.performDefaultHandling, nil, nil)
                }
                if let failure = evaluate(trust, usesRoots: usesRoots, pins: pins) {
                    return (.cancelAuthenticationChallenge, nil, failure)
                }
                return (.useCredential, URLCredential(trust: trust), nil)
            case NSURLAuthenticationMethodClientCertificate:
                switch clientCredential() {
                case nil: return (.performDefaultHandling, nil, nil)
                case .success(let credential)?: return (.useCredential, credential, nil)
                case .failure(let failure)?: return (.cancelAuthenticationChallenge, nil, failure)
                }
            default:
                return (.performDefaultHandling, nil, nil)
            }
        }

        /// Evaluates `trust` with the policy's roots when it has any, then checks `pins` against the keys of the
        /// evaluated chain.
        private func evaluate(_ trust: SecTrust, usesRoots: Bool, pins: Set<Data>) -> TLSCheckFailure? {
            if usesRoots {
                var anchors: [SecCertificate] = []
                for root in policy.additionalTrustRoots {
                    guard let certificate = SecCertificateCreateWithData(nil, root.der as CFData) else {
                        return .unreadableTrustRoot
                    }
                    anchors.append(certificate)
                }
                guard SecTrustSetAnchorCertificates(trust, anchors as CFArray) == errSecSuccess,
                    SecTrustSetAnchorCertificatesOnly(trust, policy.trustsOnlyAdditionalRoots) == errSecSuccess
                else { return .unreadableTrustRoot }
            }
            var error: CFError?
            guard SecTrustEvaluateWithError(trust, &error) else {
                return TLSCheckFailure(trustErrorCode: error.map { CFErrorGetCode($0) } ?? 0)
            }
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            let keys = chain.map(Self.subjectPublicKeyInfo(of:))
            let matches = SubjectPublicKeyInfo.chainMatches(keys, pins: pins) { Data(SHA256.hash(data: $0)) }
            return matches ? nil : .pinMismatch
        }

        /// The DER `SubjectPublicKeyInfo` of `certificate`'s key, or `nil` for a key of another kind.
        private static func subjectPublicKeyInfo(of certificate: SecCertificate) -> Data? {
            guard let key = SecCertificateCopyKey(certificate),
                let attributes = SecKeyCopyAttributes(key) as? [String: Any],
                let type = attributes[kSecAttrKeyType as String].map({ "\($0)" }),
                let size = attributes[kSecAttrKeySizeInBits as String] as? Int,
                let bytes = SecKeyCopyExternalRepresentation(key, nil) as Data?
            else { return nil }
            let keyType: SubjectPublicKeyInfo.KeyType
            if type == kSecAttrKeyTypeRSA as String {
                keyType = .rsa
            } else if type == kSecAttrKeyTypeECSECPrimeRandom as String {
                keyType = .ellipticCurve
            } else {
                return nil
            }
            return SubjectPublicKeyInfo.der(keyType: keyType, keySizeInBits: size, key: bytes)
        }

        /// The credential of the policy's PKCS #12 identity, imported at the first client-certificate challenge and
        /// kept for the session; `nil` when the policy has none (the challenge then gets default handling, as
        /// without a policy).
        private func clientCredential() -> Result<URLCredential, TLSCheckFailure>? {
            guard case .pkcs12(let archive, let password)? = policy.clientIdentity?.format else { return nil }
            lock.lock()
            defer { lock.unlock() }
            if let importedIdentity { return importedIdentity }
            let imported = Self.importIdentity(archive, password: password)
            importedIdentity = imported
            return imported
        }

        /// The first identity of a PKCS #12 archive, with the archive's other certificates as its chain.
        private static func importIdentity(_ archive: Data, password: String)
            -> Result<URLCredential, TLSCheckFailure>
        {
            var options: [String: Any] = [kSecImportExportPassphrase as String: password]
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
                // Otherwise macOS adds the identity to the default keychain.
                options[kSecImportToMemoryOnly as String] = true
            }
            var items: CFArray?
            let status = SecPKCS12Import(archive as CFData, options as CFDictionary, &items)
            guard status == errSecSuccess else { return .failure(.unreadableClientIdentity(code: Int(status))) }
            guard let item = (items as? [[String: Any]])?.first,
                let found = item[kSecImportItemIdentity as String].map({ $0 as AnyObject }),
                CFGetTypeID(found) == SecIdentityGetTypeID()
            else { return .failure(.unreadableClientIdentity(code: 0)) }
            let identity = unsafeDowncast(found, to: SecIdentity.self)
            var leaf: SecCertificate?
            guard SecIdentityCopyCertificate(identity, &leaf) == errSecSuccess, let leaf else {
                return .failure(.unreadableClientIdentity(code: 0))
            }
            // The server has the identity's own certificate from the credential; the others are its chain.
            let leafDER = SecCertificateCopyData(leaf) as Data
            let chain = (item[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
            let intermediates = chain.filter { SecCertificateCopyData($0) as Data != leafDER }
            return .success(URLCredential(identity: identity, certificates: intermediates, persistence: .forSession))
        }
    #endif
}
