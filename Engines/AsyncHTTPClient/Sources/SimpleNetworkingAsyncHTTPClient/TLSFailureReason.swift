import Foundation
import NIOSSL

/// Which TLS check failed, in words a person can act on, from NIOSSL's error and the reasons on BoringSSL's error
/// stack (the `SSL_R_` names of BoringSSL's `ssl.h`, such as `CERTIFICATE_VERIFY_FAILED`). Never key material: the
/// words are the library's, and BoringSSL's reason names are constants.
enum TLSFailureReason {
    /// The detail of a TLS failure, or `nil` when `error` is not one from NIOSSL.
    static func detail(of error: any Error) -> String? {
        switch error {
        case let error as NIOSSLExtraError:
            return extraErrorDetail(error)
        case let error as NIOSSLError:
            switch error {
            case .handshakeFailed(let error): return boringSSLDetail(error)
            case .uncleanShutdown: return "the server closed the connection without ending TLS (no close_notify)"
            case .failedToLoadCertificate, .failedToLoadPrivateKey:
                return "the client identity could not be loaded"
            default: return "NIOSSL: \(error)"
            }
        case let error as BoringSSLError:
            return boringSSLDetail(error)
        default:
            return nil
        }
    }

    private static func extraErrorDetail(_ error: NIOSSLExtraError) -> String {
        if error == .failedToValidateHostname {
            return "host name mismatch: the server's certificate is valid but names other hosts than the one in the "
                + "URL (its subject alternative names must hold the URL's host name or IP address)"
        }
        return "NIOSSL: \(error)"
    }

    private static func boringSSLDetail(_ error: BoringSSLError) -> String {
        switch error {
        case .sslError(let stack), .unknownError(let stack):
            let reasons = stack.compactMap(reasonName)
            if reasons.isEmpty, stack.contains(.eofDuringHandshake) { return eofDuringHandshake }
            return detail(reasons: reasons)
        case .syscallError, .zeroReturn:
            return eofDuringHandshake
        default:
            return "BoringSSL: \(error)"
        }
    }

    private static let eofDuringHandshake =
        "handshake refused: the server closed the connection during the TLS handshake (is it a TLS port? does it "
        + "require a client certificate, or a TLS version the client does not offer?)"

    /// The reason names on BoringSSL's error stack of `error`, for an error raised while making an SSL context.
    static func reasonNames(of error: any Error) -> [String] {
        switch error {
        case let error as BoringSSLError:
            switch error {
            case .sslError(let stack), .unknownError(let stack), .invalidSNIName(let stack),
                .failedToSetALPN(let stack):
                return stack.compactMap(reasonName)
            default: return []
            }
        case NIOSSLError.handshakeFailed(let error): return reasonNames(of: error)
        default: return []
        }
    }

    /// The reason of one error of BoringSSL's stack: the last field of its `error:<code>:<library>:OPENSSL_internal:`
    /// `<REASON>` text, as NIOSSL describes it.
    private static func reasonName(_ error: BoringSSLInternalError) -> String? {
        let text = error.description
        guard let marker = text.range(of: "OPENSSL_internal:") else { return nil }
        let name = text[marker.upperBound...].prefix { $0.isUppercase || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }

    /// What the first reason BoringSSL gave means for the person who sent the request; every reason is named after.
    static func detail(reasons: [String]) -> String {
        let named = reasons.isEmpty ? "BoringSSL gave no reason" : "BoringSSL: " + reasons.joined(separator: ", ")
        guard let check = reasons.lazy.compactMap(check(forReason:)).first else {
            return "the TLS handshake failed (\(named))"
        }
        return "\(check) (\(named))"
    }

    /// The check a BoringSSL reason name reports, in words; `nil` for a reason not in the table.
    static func check(forReason reason: String) -> String? {
        switch reason {
        case "CERTIFICATE_VERIFY_FAILED":
            // BoringSSL keeps the certificate check's own result in the session, which neither NIOSSL nor
            // AsyncHTTPClient hand out: an unknown issuer and a certificate out of its validity read the same.
            return "certificate not trusted: the server's certificate chain does not lead to a trusted root "
                + "(unknown issuer: a private CA, which the TLS policy's additionalTrustRoots can add, or a "
                + "self-signed certificate), or a certificate of the chain has expired or is not yet valid "
                + "(BoringSSL reports these checks as one)"
        case "SSLV3_ALERT_CERTIFICATE_EXPIRED":
            return "client certificate rejected: the server says the client certificate has expired"
        case "TLSV1_ALERT_CERTIFICATE_REQUIRED", "PEER_DID_NOT_RETURN_A_CERTIFICATE":
            return "client certificate required: the server asks for a client certificate and none was presented "
                + "(set the TLS policy's clientIdentity)"
        case "TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
            "SSLV3_ALERT_UNSUPPORTED_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_REVOKED", "TLSV1_ALERT_ACCESS_DENIED",
            "TLSV1_ALERT_DECRYPT_ERROR":
            return "client certificate rejected: the server refused the client certificate presented (is it "
                + "issued by a CA the server trusts, still valid, and is the key its own?)"
        case "TLSV1_ALERT_PROTOCOL_VERSION", "UNSUPPORTED_PROTOCOL", "TLSV1_ALERT_INSUFFICIENT_SECURITY":
            return "protocol version refused: the server and the client have no TLS version in common (the TLS "
                + "policy's minimumVersion, or a server that offers only older versions)"
        case "SSLV3_ALERT_HANDSHAKE_FAILURE", "NO_SHARED_CIPHER", "NO_CIPHERS_AVAILABLE",
            "HANDSHAKE_FAILURE_ON_CLIENT_HELLO", "NO_COMMON_SIGNATURE_ALGORITHMS":
            return "handshake refused: the server and the client agreed on no cipher suite or parameters, or the "
                + "server requires a client certificate that was not presented"
        case "TLSV1_ALERT_UNRECOGNIZED_NAME":
            return "handshake refused: the server does not serve the host name the client asked for (SNI)"
        case "TLSV1_ALERT_NO_APPLICATION_PROTOCOL":
            return "handshake refused: the server speaks none of the application protocols offered (ALPN)"
        case "SSLV3_ALERT_ILLEGAL_PARAMETER", "TLSV1_ALERT_DECODE_ERROR", "TLSV1_ALERT_INTERNAL_ERROR":
            return "handshake refused by the server"
        case "WRONG_VERSION_NUMBER":
            return "handshake refused: the server did not answer in TLS (a plain-HTTP port?)"
        default:
            return nil
        }
    }
}
