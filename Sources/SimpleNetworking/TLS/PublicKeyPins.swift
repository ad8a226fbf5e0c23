import Foundation

/// The public keys a host, or hosts matching a pattern, must present: SHA-256 digests of the DER
/// `SubjectPublicKeyInfo` of a key in the server's verified chain, the pin format of HTTP Public Key Pinning and of
/// OkHttp's `CertificatePinner`.
///
/// Patterns: `api.example.com` matches that host only; `*.example.com` matches one label before `example.com`
/// (`api.example.com`, not `example.com` nor `a.b.example.com`); `**.example.com` matches `example.com` and any
/// number of labels before it. Matching ignores case and a trailing dot. A connection to a matching host succeeds
/// only when one of the keys in its chain has one of the digests; pin a backup key too, so that a new key does not
/// lock your app out.
///
/// ```swift
/// let pins = try PublicKeyPins(host: "**.example.com", ["sha256/AAAA...=", "sha256/BBBB...="])
/// ```
public struct PublicKeyPins: Sendable, Hashable {
    /// The host pattern, in lower case, without a trailing dot.
    public let hostPattern: String
    /// The SHA-256 digests, 32 bytes each.
    public let digests: Set<Data>

    /// Pins for hosts matching `pattern`, from `sha256/<base64>` strings.
    /// - Parameters:
    ///   - pattern: A host name, `*.` and a name, or `**.` and a name.
    ///   - pins: One or more `sha256/` pins, each the base64 of a 32-byte digest.
    /// - Throws: ``TLSPolicyError/invalidHostPattern(_:)``, or ``TLSPolicyError/invalidPin`` for an empty list or a
    ///   pin that is not `sha256/` and 32 bytes of base64.
    public init(host pattern: String, _ pins: [String]) throws(TLSPolicyError) {
        var digests: [Data] = []
        for pin in pins {
            guard pin.hasPrefix("sha256/"), let digest = Data(base64Encoded: String(pin.dropFirst(7))),
                digest.count == 32
            else { throw .invalidPin }
            digests.append(digest)
        }
        try self.init(host: pattern, digests: digests)
    }

    /// Pins for hosts matching `pattern`, from the digests' bytes.
    /// - Parameters:
    ///   - pattern: A host name, `*.` and a name, or `**.` and a name.
    ///   - digests: One or more SHA-256 digests of 32 bytes.
    /// - Throws: ``TLSPolicyError/invalidHostPattern(_:)``, or ``TLSPolicyError/invalidPin`` for an empty list or a
    ///   digest that is not 32 bytes.
    public init(host pattern: String, digests: [Data]) throws(TLSPolicyError) {
        guard !digests.isEmpty, digests.allSatisfy({ $0.count == 32 }) else { throw .invalidPin }
        let normalized = Self.normalize(pattern)
        var name = normalized[...]
        if name.hasPrefix("**.") {
            name = name.dropFirst(3)
        } else if name.hasPrefix("*.") {
            name = name.dropFirst(2)
        }
        guard Self.isHostName(name) else { throw .invalidHostPattern(pattern) }
        hostPattern = normalized
        self.digests = Set(digests)
    }

    /// Whether the pattern matches `host`.
    /// - Parameter host: A host name or address, as in a URL.
    /// - Returns: `true` when the pins apply to connections to `host`.
    public func matches(host: String) -> Bool {
        let host = Self.normalize(host)
        if hostPattern.hasPrefix("**.") {
            let suffix = hostPattern.dropFirst(3)
            return host == suffix || host.hasSuffix("." + suffix)
        }
        if hostPattern.hasPrefix("*.") {
            let suffix = hostPattern.dropFirst(1)  // ".example.com"
            guard host.hasSuffix(suffix) else { return false }
            let label = host.dropLast(suffix.count)
            return !label.isEmpty && !label.contains(".")
        }
        return host == hostPattern
    }

    private static func normalize(_ host: String) -> String {
        let lower = host.lowercased()
        return lower.hasSuffix(".") ? String(lower.dropLast()) : lower
    }

    /// Letters, digits, `-`, `_` and `.` between non-empty labels; an IPv6 literal in brackets also passes.
    private static func isHostName(_ name: Substring) -> Bool {
        if name.hasPrefix("["), name.hasSuffix("]"), name.count > 2 { return true }
        guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix("."), !name.contains("..") else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" || scalar == ".")
        }
    }
}
