import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// The TLS policy's values (<doc:TLS>): host patterns, pins, PEM, and what a policy asks of a transport.
@Suite("TLS policy values")
struct TLSPolicyTests {
    /// Host patterns as OkHttp's certificate pinner reads them: `*.` is one label, `**.` any number including none.
    static let patterns: [(pattern: String, host: String, matches: Bool)] = [
        ("example.com", "example.com", true),
        ("example.com", "EXAMPLE.com.", true),
        ("example.com", "api.example.com", false),
        ("example.com", "example.org", false),
        ("*.example.com", "api.example.com", true),
        ("*.example.com", "API.Example.COM", true),
        ("*.example.com", "example.com", false),
        ("*.example.com", "a.b.example.com", false),
        ("*.example.com", "apiexample.com", false),
        ("*.example.com", "api.example.com.evil.net", false),
        ("**.example.com", "example.com", true),
        ("**.example.com", "api.example.com", true),
        ("**.example.com", "a.b.example.com", true),
        ("**.example.com", "badexample.com", false),
        ("**.example.com", "example.com.evil.net", false),
        ("127.0.0.1", "127.0.0.1", true),
        ("127.0.0.1", "127.0.0.2", false),
    ]

    static let digest = Data(repeating: 7, count: 32)
    static let pin = "sha256/" + digest.base64EncodedString()

    @Test("A host pattern matches the hosts it names", arguments: patterns)
    func hostPattern(_ row: (pattern: String, host: String, matches: Bool)) throws {
        let pins = try PublicKeyPins(host: row.pattern, [Self.pin])
        #expect(pins.matches(host: row.host) == row.matches, "\(row.pattern) against \(row.host)")
    }

    @Test(
        "A pattern that is not a host name, one label or any labels is refused",
        arguments: [
            "", "*", "**", "*.", "a.*.com", "*example.com", "ex ample.com", "example..com", ".example.com",
            "***.example.com", "exämple.com",
        ])
    func invalidPattern(_ pattern: String) {
        #expect(throws: TLSPolicyError.invalidHostPattern(pattern)) { try PublicKeyPins(host: pattern, [Self.pin]) }
    }

    @Test(
        "A pin is sha256/ and the base64 of 32 bytes; anything else is refused without repeating it",
        arguments: [
            "sha1/" + Data(repeating: 1, count: 20).base64EncodedString(),
            "sha256/" + Data(repeating: 1, count: 31).base64EncodedString(), "sha256/not base64!", "sha256/",
            Data(repeating: 1, count: 32).base64EncodedString(),
        ])
    func invalidPin(_ pin: String) {
        #expect(throws: TLSPolicyError.invalidPin) { try PublicKeyPins(host: "example.com", [pin]) }
        #expect(pin.count < 10 || !TLSPolicyError.invalidPin.description.contains(pin))
    }

    @Test("No pins at all is refused")
    func emptyPins() {
        #expect(throws: TLSPolicyError.invalidPin) { try PublicKeyPins(host: "example.com", []) }
    }

    @Test("Pins for a host are the digests of every pattern that matches it")
    func digestsForHost() throws {
        var policy = TLSPolicy()
        let other = Data(repeating: 9, count: 32)
        policy.pins = [
            try PublicKeyPins(host: "**.example.com", digests: [Self.digest]),
            try PublicKeyPins(host: "api.example.com", digests: [other]),
        ]
        #expect(policy.pinnedKeyDigests(forHost: "api.example.com") == [Self.digest, other])
        #expect(policy.pinnedKeyDigests(forHost: "www.example.com") == [Self.digest])
        #expect(policy.pinnedKeyDigests(forHost: "example.org").isEmpty)
    }

    @Test("Every certificate of a PEM text is read, in order, around other text")
    func certificates() throws {
        let first = Data([0x30, 0x03, 0x01, 0x02, 0x03])
        let second = Data([0x30, 0x02, 0x05, 0x00])
        let text = """
            Subject: the first
            -----BEGIN CERTIFICATE-----
            \(first.base64EncodedString())
            -----END CERTIFICATE-----
            -----BEGIN CERTIFICATE-----
            \(second.base64EncodedString())
            -----END CERTIFICATE-----
            """
        #expect(try TLSCertificate.certificates(pem: text).map(\.der) == [first, second])
    }

    @Test(
        "PEM that holds no certificate, is not closed or is not base64 is refused",
        arguments: [
            ("no certificate here", TLSPolicyError.noPEMBlock(label: "CERTIFICATE")),
            ("-----BEGIN CERTIFICATE-----\nMAMBAgM=\n", .invalidPEM(label: "CERTIFICATE")),
            ("-----BEGIN CERTIFICATE-----\n%%%\n-----END CERTIFICATE-----", .invalidPEM(label: "CERTIFICATE")),
            ("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----", .invalidPEM(label: "CERTIFICATE")),
            ("-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----", .notACertificate),
        ])
    func invalidPEM(_ text: String, _ error: TLSPolicyError) {
        #expect(throws: error) { try TLSCertificate.certificates(pem: text) }
    }

    @Test("A client identity's description shows neither its key nor its password")
    func identityDescription() throws {
        let certificate = try TLSCertificate(der: Data([0x30, 0x02, 0x05, 0x00]))
        let key = "-----BEGIN PRIVATE KEY-----\nU0VDUkVUS0VZ\n-----END PRIVATE KEY-----"
        let pem = try TLSClientIdentity(certificateChain: [certificate], privateKeyPEM: key)
        let pkcs12 = try TLSClientIdentity(pkcs12: Data([0x30, 0x01, 0x00]), password: "hunter2")
        for identity in [pem, pkcs12] {
            #expect(!"\(identity)".contains("U0VDUkVUS0VZ") && !"\(identity)".contains("hunter2"), "\(identity)")
        }
        #expect(throws: TLSPolicyError.noCertificates) {
            try TLSClientIdentity(certificateChain: [], privateKeyPEM: key)
        }
        #expect(throws: TLSPolicyError.noPEMBlock(label: "PRIVATE KEY")) {
            try TLSClientIdentity(certificateChain: [certificate], privateKeyPEM: "no key")
        }
        #expect(throws: TLSPolicyError.notPKCS12) { try TLSClientIdentity(pkcs12: Data("p12".utf8), password: "") }
    }

    @Test("A policy asks for the parts it sets, pins only for hosts they match")
    func requirements() throws {
        #expect(TLSPolicy.system.requirements(forHost: "example.com").isEmpty)
        var policy = TLSPolicy()
        policy.additionalTrustRoots = [try TLSCertificate(der: Data([0x30, 0x02, 0x05, 0x00]))]
        policy.trustsOnlyAdditionalRoots = true
        policy.minimumVersion = .tls13
        policy.pins = [try PublicKeyPins(host: "*.example.com", [Self.pin])]
        policy.clientIdentity = try TLSClientIdentity(pkcs12: Data([0x30, 0x01, 0x00]), password: "")
        let base: TLSRequirements = [
            .additionalTrustRoots, .onlyAdditionalTrustRoots, .minimumVersion, .clientIdentityPKCS12,
        ]
        #expect(policy.requirements(forHost: "example.org") == base)
        #expect(policy.requirements(forHost: "api.example.com") == base.union(.publicKeyPins))
        #expect(policy.requirements(forHost: nil) == base.union(.publicKeyPins))
        #expect(
            TLSRequirements([.publicKeyPins, .clientIdentityPEM]).description
                == "public-key pins, a client identity from PEM")
    }
}
