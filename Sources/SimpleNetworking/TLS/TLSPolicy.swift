import Foundation

/// What a client requires of its HTTPS connections beyond the platform's defaults: extra trust roots, trusting only
/// those, public-key pins, a client identity for mutual TLS, a minimum TLS version.
///
/// The policy is a set of values; each transport enforces it in its own way, and one that cannot enforce a part
/// refuses every HTTPS request the part applies to with ``SimpleNetworkingError/unsupportedByTransport(reason:)``,
/// naming the transport and the part, before anything is sent. A policy is never silently ignored. Plain `http`
/// requests are not affected.
///
/// ```swift
/// var configuration = SimpleNetworking.Configuration()
/// configuration.tls.additionalTrustRoots = try TLSCertificate.certificates(pem: caPEM)
/// configuration.tls.pins = [try PublicKeyPins(host: "**.example.com", ["sha256/..."])]
/// ```
///
/// What each transport enforces is in the "TLS" article.
public struct TLSPolicy: Sendable, Hashable {
    /// Roots trusted in addition to the system's (or instead of them, with ``trustsOnlyAdditionalRoots``).
    /// Default: none.
    public var additionalTrustRoots: [TLSCertificate] {
        get { parts.additionalTrustRoots }
        set { change { $0.additionalTrustRoots = newValue } }
    }
    /// Whether only ``additionalTrustRoots`` are trusted, not the system's roots. Default: `false`.
    public var trustsOnlyAdditionalRoots: Bool {
        get { parts.trustsOnlyAdditionalRoots }
        set { change { $0.trustsOnlyAdditionalRoots = newValue } }
    }
    /// Public-key pins by host pattern: a connection to a host that a pattern matches must present, somewhere in its
    /// verified chain, a key whose SHA-256 is among the pattern's. Default: none.
    public var pins: [PublicKeyPins] {
        get { parts.pins }
        set { change { $0.pins = newValue } }
    }
    /// The certificate chain and private key presented when a server asks for one (mutual TLS). Default: none.
    public var clientIdentity: TLSClientIdentity? {
        get { parts.clientIdentity }
        set { change { $0.clientIdentity = newValue } }
    }
    /// The oldest TLS version accepted; `nil` leaves it to the transport (TLS 1.2 on every transport the library
    /// ships, as their TLS stacks are configured by default). Default: `nil`.
    public var minimumVersion: TLSVersion? {
        get { parts.minimumVersion }
        set { change { $0.minimumVersion = newValue } }
    }

    /// The platform's defaults: the system's trust roots, no pins, no client identity.
    public static let system = TLSPolicy()

    /// Whether the policy asks for nothing beyond the platform's defaults (it equals ``system``): a transport then
    /// has nothing to enforce. Cheap: for a policy never changed, one comparison.
    public var isSystemDefault: Bool { storage === Self.defaults || parts == Parts() }

    /// Creates the platform's defaults; set the parts you need.
    public init() {
        storage = Self.defaults
    }

    /// The parts, in one immutable object, so that a policy travels with every request (``TransportOptions/tls``)
    /// for the cost of one reference; a change makes a new one.
    private var storage: Storage
    private static let defaults = Storage(Parts())

    private struct Parts: Sendable, Hashable {
        var additionalTrustRoots: [TLSCertificate] = []
        var trustsOnlyAdditionalRoots = false
        var pins: [PublicKeyPins] = []
        var clientIdentity: TLSClientIdentity?
        var minimumVersion: TLSVersion?
    }

    private final class Storage: Sendable {
        let parts: Parts
        init(_ parts: Parts) { self.parts = parts }
    }

    private var parts: Parts { storage.parts }

    private mutating func change(_ body: (inout Parts) -> Void) {
        var parts = storage.parts
        body(&parts)
        storage = Storage(parts)
    }

    /// Whether two policies ask for the same.
    public static func == (lhs: TLSPolicy, rhs: TLSPolicy) -> Bool {
        lhs.storage === rhs.storage || lhs.parts == rhs.parts
    }

    /// Hashes what the policy asks for.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(parts)
    }

    /// The parts this policy asks for a connection to `host`: pins only when one of their patterns matches it.
    /// - Parameter host: The host connected to; `nil` counts every pin.
    /// - Returns: The parts a transport must enforce to send the request.
    public func requirements(forHost host: String?) -> TLSRequirements {
        var parts: TLSRequirements = []
        if !additionalTrustRoots.isEmpty { parts.insert(.additionalTrustRoots) }
        if trustsOnlyAdditionalRoots { parts.insert(.onlyAdditionalTrustRoots) }
        if !pins.isEmpty, host.map({ host in pins.contains { $0.matches(host: host) } }) ?? true {
            parts.insert(.publicKeyPins)
        }
        switch clientIdentity?.format {
        case .pem?: parts.insert(.clientIdentityPEM)
        case .pkcs12?: parts.insert(.clientIdentityPKCS12)
        case nil: break
        }
        if minimumVersion != nil { parts.insert(.minimumVersion) }
        return parts
    }

    /// The pins for `host`, from every pattern that matches it.
    /// - Parameter host: The host connected to.
    /// - Returns: The SHA-256 digests of the public keys one of which the host's chain must hold; empty when no
    ///   pattern matches.
    public func pinnedKeyDigests(forHost host: String) -> Set<Data> {
        pins.reduce(into: Set<Data>()) { digests, pins in
            if pins.matches(host: host) { digests.formUnion(pins.digests) }
        }
    }
}

/// The parts of a ``TLSPolicy``: what a policy asks for (``TLSPolicy/requirements(forHost:)``) and what a transport
/// enforces (``HTTPTransport/tlsEnforcement``).
public struct TLSRequirements: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bits.
    public let rawValue: Int

    /// Creates a set from its bits.
    /// - Parameter rawValue: The bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Trust roots added to the system's (``TLSPolicy/additionalTrustRoots``).
    public static let additionalTrustRoots = TLSRequirements(rawValue: 1 << 0)
    /// Only the given roots trusted (``TLSPolicy/trustsOnlyAdditionalRoots``).
    public static let onlyAdditionalTrustRoots = TLSRequirements(rawValue: 1 << 1)
    /// Public-key pins (``TLSPolicy/pins``).
    public static let publicKeyPins = TLSRequirements(rawValue: 1 << 2)
    /// A client identity given as PEM (``TLSClientIdentity/init(certificateChain:privateKeyPEM:)``).
    public static let clientIdentityPEM = TLSRequirements(rawValue: 1 << 3)
    /// A client identity given as PKCS #12 (``TLSClientIdentity/init(pkcs12:password:)``).
    public static let clientIdentityPKCS12 = TLSRequirements(rawValue: 1 << 4)
    /// A minimum TLS version (``TLSPolicy/minimumVersion``).
    public static let minimumVersion = TLSRequirements(rawValue: 1 << 5)

    /// Every part.
    public static let all: TLSRequirements = [
        .additionalTrustRoots, .onlyAdditionalTrustRoots, .publicKeyPins, .clientIdentityPEM, .clientIdentityPKCS12,
        .minimumVersion,
    ]

    /// The parts in words, joined with commas: "public-key pins, a client identity from PEM".
    public var description: String {
        let names: [(TLSRequirements, String)] = [
            (.additionalTrustRoots, "additional trust roots"), (.onlyAdditionalTrustRoots, "trusting only given roots"),
            (.publicKeyPins, "public-key pins"), (.clientIdentityPEM, "a client identity from PEM"),
            (.clientIdentityPKCS12, "a client identity from PKCS #12"), (.minimumVersion, "a minimum TLS version"),
        ]
        return names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

/// A TLS protocol version, for ``TLSPolicy/minimumVersion``.
public enum TLSVersion: Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// TLS 1.2.
    case tls12
    /// TLS 1.3.
    case tls13

    /// "TLS 1.2" or "TLS 1.3".
    public var description: String { self == .tls12 ? "TLS 1.2" : "TLS 1.3" }
}
