import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which check of a ``TLSPolicy`` failed when URLSession's delegate answered a server-trust or client-certificate
/// challenge on Apple platforms, as the `URLError` the attempt then fails with: its code is one ``TransportFailure``
/// reads as ``TransportFailure/Category/tlsFailure``, and its detail names the check. Never key material, a password
/// or a certificate's contents.
///
/// Pure, so that the tests run it on every platform: the codes are the Security framework's result codes, which
/// `SecTrustEvaluateWithError` reports as its error's code.
package enum TLSCheckFailure: Error, Sendable, Hashable {
    /// No trusted root issued the chain (`errSecNotTrusted`, and any other code of an untrusted chain).
    case unknownIssuer
    /// A certificate of the chain has expired (`errSecCertificateExpired`).
    case expired
    /// A certificate of the chain is not valid yet (`errSecCertificateNotValidYet`).
    case notYetValid
    /// The certificate is not for the host connected to (`errSecHostNameMismatch`).
    case hostNameMismatch
    /// A certificate of the chain has been revoked (`errSecCertificateRevoked`).
    case revoked
    /// Trust evaluation failed with another Security framework code.
    case untrusted(code: Int)
    /// The chain is trusted, but none of its keys has a digest among the host's pins.
    case pinMismatch
    /// A root of ``TLSPolicy/additionalTrustRoots`` is not a certificate the Security framework can read.
    case unreadableTrustRoot
    /// The server asked for a client certificate and the policy's PKCS #12 archive could not be imported.
    case unreadableClientIdentity(code: Int)

    /// The failure `SecTrustEvaluateWithError` reported with `code`.
    /// - Parameter code: The code of the evaluation's error.
    package init(trustErrorCode code: Int) {
        switch code {
        case -67843: self = .unknownIssuer  // errSecNotTrusted
        case -67818: self = .expired  // errSecCertificateExpired
        case -67819: self = .notYetValid  // errSecCertificateNotValidYet
        case -67602: self = .hostNameMismatch  // errSecHostNameMismatch
        case -67820: self = .revoked  // errSecCertificateRevoked
        default: self = .untrusted(code: code)
        }
    }

    /// The `URLError` code Apple platforms report for the same failure when URLSession checks by itself.
    package var code: URLError.Code {
        switch self {
        case .unknownIssuer: .serverCertificateHasUnknownRoot
        case .expired: .serverCertificateHasBadDate
        case .notYetValid: .serverCertificateNotYetValid
        case .hostNameMismatch, .revoked, .untrusted, .pinMismatch, .unreadableTrustRoot: .serverCertificateUntrusted
        case .unreadableClientIdentity: .clientCertificateRequired
        }
    }

    /// The check that failed, in the words the Linux transport uses for the same checks.
    package var detail: String {
        switch self {
        case .unknownIssuer: "the server's certificate is not issued by a trusted authority (unknown issuer)"
        case .expired: "the server's certificate has expired"
        case .notYetValid: "the server's certificate is not yet valid"
        case .hostNameMismatch: "the server's certificate is not for this host name"
        case .revoked: "the server's certificate has been revoked"
        case .untrusted(let code): "the server's certificate is not trusted (Security framework error \(code))"
        case .pinMismatch:
            "no key in the server's certificate chain matches the public-key pins for this host (pin mismatch)"
        case .unreadableTrustRoot: "a trust root of the TLS policy is not a certificate the Security framework can read"
        case .unreadableClientIdentity(let code):
            "the server requires a client certificate, and the client identity could not be imported from its "
                + "PKCS #12 archive (Security framework error \(code): a wrong password, or no certificate with its "
                + "private key)"
        }
    }

    /// The error the attempt fails with.
    /// - Parameter request: The request of the challenged task, whose URL the error names.
    /// - Returns: A `URLError` with ``code`` and ``detail`` for ``TransportFailure/init(_:)-(URLError)``.
    package func urlError(for request: URLRequest?) -> URLError {
        var userInfo = Malformed.failingURL(request)
        userInfo[TransportFailure.detailKey] = detail
        return URLError(code, userInfo: userInfo)
    }
}
