import Foundation

/// One X.509 certificate, held as its DER bytes: a trust root for ``TLSPolicy/additionalTrustRoots`` or a link of a
/// ``TLSClientIdentity``'s chain.
public struct TLSCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding.
    public let der: Data

    /// A certificate from its DER encoding.
    /// - Parameter der: The DER bytes.
    /// - Throws: ``TLSPolicyError/notACertificate`` when the bytes are not a DER `SEQUENCE`.
    public init(der: Data) throws(TLSPolicyError) {
        guard der.count > 2, der.first == 0x30 else { throw .notACertificate }
        self.der = der
    }

    /// Every certificate in a PEM text, in order (a CA file, or a chain with the leaf first).
    /// - Parameter pem: Text with one or more `-----BEGIN CERTIFICATE-----` blocks; text around them is ignored.
    /// - Returns: At least one certificate.
    /// - Throws: ``TLSPolicyError/noPEMBlock(label:)`` when there is no certificate block,
    ///   ``TLSPolicyError/invalidPEM(label:)`` when a block is not base64 or not closed.
    public static func certificates(pem: String) throws(TLSPolicyError) -> [TLSCertificate] {
        let blocks = try PEM.blocks(in: pem, label: "CERTIFICATE")
        var certificates: [TLSCertificate] = []
        for block in blocks { certificates.append(try TLSCertificate(der: block)) }
        return certificates
    }

    /// The certificate's size; never its bytes.
    public var description: String { "TLSCertificate(\(der.count) bytes of DER)" }
}

/// The certificate chain and private key a client presents for mutual TLS, given as PEM or as PKCS #12.
///
/// Its description never shows the key or the password. Transports differ in the forms they can use: the
/// AsyncHTTPClient engine takes both, URLSession on Apple platforms takes PKCS #12 (the form the Security framework
/// imports), URLSession on Linux neither; see ``TLSRequirements``.
public struct TLSClientIdentity: Sendable, Hashable, CustomStringConvertible {
    /// How the identity was given.
    public enum Format: Sendable, Hashable {
        /// A certificate chain and a PEM private key.
        case pem(certificateChain: [TLSCertificate], privateKeyPEM: String)
        /// A PKCS #12 archive and its password.
        case pkcs12(Data, password: String)
    }

    /// The identity as it was given.
    public let format: Format

    /// An identity from a certificate chain (leaf first) and its private key in PEM (`PRIVATE KEY`,
    /// `EC PRIVATE KEY` or `RSA PRIVATE KEY`, unencrypted).
    /// - Parameters:
    ///   - certificateChain: The client's certificate first, then any intermediates.
    ///   - privateKeyPEM: The private key of the first certificate, in PEM.
    /// - Throws: ``TLSPolicyError/noCertificates`` for an empty chain, ``TLSPolicyError/noPEMBlock(label:)`` when the
    ///   text holds no private key block, ``TLSPolicyError/invalidPEM(label:)`` when it is not base64.
    public init(certificateChain: [TLSCertificate], privateKeyPEM: String) throws(TLSPolicyError) {
        guard !certificateChain.isEmpty else { throw .noCertificates }
        let labels = ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"]
        guard labels.contains(where: { PEM.containsBlock(in: privateKeyPEM, label: $0) }) else {
            throw .noPEMBlock(label: "PRIVATE KEY")
        }
        for label in labels where PEM.containsBlock(in: privateKeyPEM, label: label) {
            _ = try PEM.blocks(in: privateKeyPEM, label: label)
        }
        format = .pem(certificateChain: certificateChain, privateKeyPEM: privateKeyPEM)
    }

    /// An identity from a PKCS #12 archive (`.p12`, `.pfx`) holding the certificate, its chain and the key.
    /// - Parameters:
    ///   - pkcs12: The archive's bytes.
    ///   - password: The archive's password.
    /// - Throws: ``TLSPolicyError/notPKCS12`` when the bytes are not a DER `SEQUENCE`.
    public init(pkcs12: Data, password: String) throws(TLSPolicyError) {
        guard pkcs12.count > 2, pkcs12.first == 0x30 else { throw .notPKCS12 }
        format = .pkcs12(pkcs12, password: password)
    }

    /// The form and the chain's length; never the key or the password.
    public var description: String {
        switch format {
        case .pem(let chain, _): "TLSClientIdentity(PEM, \(chain.count) certificate(s), private key redacted)"
        case .pkcs12(let data, _): "TLSClientIdentity(PKCS #12, \(data.count) bytes, password redacted)"
        }
    }
}

/// Why a value for a ``TLSPolicy`` could not be made.
public enum TLSPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text holds no PEM block with this label.
    case noPEMBlock(label: String)
    /// A PEM block with this label is not closed, or its body is not base64.
    case invalidPEM(label: String)
    /// The bytes are not a DER certificate.
    case notACertificate
    /// A client identity needs at least one certificate.
    case noCertificates
    /// The bytes are not a PKCS #12 archive.
    case notPKCS12
    /// A pin is not `sha256/` followed by the base64 of 32 bytes; the value is not repeated here.
    case invalidPin
    /// A host pattern is not a host name, `*.` and a name, or `**.` and a name.
    case invalidHostPattern(String)

    /// What was wrong, in words.
    public var description: String {
        switch self {
        case .noPEMBlock(let label): "the text holds no -----BEGIN \(label)----- block"
        case .invalidPEM(let label): "a \(label) PEM block is not closed or not base64"
        case .notACertificate: "the bytes are not a DER-encoded certificate"
        case .noCertificates: "a client identity needs at least one certificate"
        case .notPKCS12: "the bytes are not a PKCS #12 archive"
        case .invalidPin: "a pin must be 'sha256/' followed by the base64 of a 32-byte SHA-256 digest"
        case .invalidHostPattern(let pattern):
            "'\(pattern)' is not a host pattern: use a host name, '*.' and a name (one label), or '**.' and a name"
        }
    }
}

/// Reading PEM blocks: `-----BEGIN <label>-----`, base64 lines, `-----END <label>-----`.
enum PEM {
    static func containsBlock(in text: String, label: String) -> Bool {
        text.contains("-----BEGIN \(label)-----")
    }

    /// The decoded bodies of every block with `label`, in order.
    static func blocks(in text: String, label: String) throws(TLSPolicyError) -> [Data] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        var blocks: [Data] = []
        var rest = text[...]
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else {
                throw .invalidPEM(label: label)
            }
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard !body.isEmpty, let data = Data(base64Encoded: String(body)) else { throw .invalidPEM(label: label) }
            blocks.append(data)
            rest = rest[stop.upperBound...]
        }
        guard !blocks.isEmpty else { throw .noPEMBlock(label: label) }
        return blocks
    }
}
