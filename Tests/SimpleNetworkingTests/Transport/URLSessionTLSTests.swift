import Foundation
import SimpleNetworking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The parts of URLSession's TLS enforcement on Apple platforms that run everywhere: rebuilding a key's
/// `SubjectPublicKeyInfo` for its pin, matching a chain against pins, naming the failed check, and what the transport
/// enforces or refuses. The challenges themselves only type-check on Linux (the Apple-branch build).
@Suite("URLSession TLS: public-key pins, failed checks, what is enforced")
struct URLSessionTLSTests {
    typealias KeyType = SubjectPublicKeyInfo.KeyType

    /// Facts from `openssl genpkey` then `openssl pkey -pubout -outform DER` for one key of each kind: the DER
    /// `SubjectPublicKeyInfo` up to and including the BIT STRING's unused-bits byte, and the length of what follows
    /// (the raw key, as the Security framework's external representation holds it).
    static let headers: [(type: KeyType, bits: Int, header: String, rawLength: Int)] = [
        (.rsa, 2048, "30820122300d06092a864886f70d01010105000382010f00", 270),
        (.rsa, 3072, "308201a2300d06092a864886f70d01010105000382018f00", 398),
        (.rsa, 4096, "30820222300d06092a864886f70d01010105000382020f00", 526),
        (.ellipticCurve, 256, "3059301306072a8648ce3d020106082a8648ce3d030107034200", 65),
        (.ellipticCurve, 384, "3076301006072a8648ce3d020106052b81040022036200", 97),
        (.ellipticCurve, 521, "30819b301006072a8648ce3d020106052b8104002303818600", 133),
    ]

    @Test("The SubjectPublicKeyInfo of RSA 2048/3072/4096 and P-256/384/521 keys is openssl's", arguments: headers)
    func header(_ row: (type: KeyType, bits: Int, header: String, rawLength: Int)) throws {
        // The raw key's form as far as it is checked: a SEQUENCE for RSA, an uncompressed point for EC.
        var raw = Data(repeating: 0xA5, count: row.rawLength)
        raw[0] = row.type == .rsa ? 0x30 : 0x04

        let info = try #require(SubjectPublicKeyInfo.der(keyType: row.type, keySizeInBits: row.bits, key: raw))

        #expect(info == Self.bytes(row.header) + raw)
    }

    /// A P-256 key made by `openssl genpkey`: its `SubjectPublicKeyInfo`, and its pin as
    /// `openssl pkey -pubout -outform DER | openssl dgst -sha256 -binary | base64` printed it.
    static let p256Info =
        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEEDUe+Fb5KK0s5ykAc+79sVA5ZJQNoPhFZMS5fDSepIhXWmrymuCLQcjKkM+VbfRwtOtK/QUQ"
        + "HwS+8VYpGhZmhw=="
    static let p256Pin = "sha256/WFEniQoKAukSkJmtNUglYThq0PBljXxKK+FBeUZ7CAg="

    @Test("A real key's raw bytes give back its SubjectPublicKeyInfo, and its pin matches a chain that holds it")
    func realKey() throws {
        let info = try #require(Data(base64Encoded: Self.p256Info))
        let raw = info.suffix(65)
        var policy = TLSPolicy()
        policy.pins = [try PublicKeyPins(host: "*.example.com", [Self.p256Pin])]
        let pins = policy.pinnedKeyDigests(forHost: "api.example.com")
        let digest = try #require(pins.first)
        // SHA-256 is not in Foundation on Linux: the transport hashes with CryptoKit; here, the digest openssl gave.
        let sha256: (Data) -> Data = { $0 == info ? digest : Data(repeating: 0, count: 32) }

        #expect(SubjectPublicKeyInfo.der(keyType: .ellipticCurve, keySizeInBits: 256, key: Data(raw)) == info)
        let other = Data(repeating: 1, count: 10)
        #expect(SubjectPublicKeyInfo.chainMatches([other, nil, info], pins: pins, sha256: sha256))
        #expect(!SubjectPublicKeyInfo.chainMatches([other, nil], pins: pins, sha256: sha256))
        #expect(!SubjectPublicKeyInfo.chainMatches([], pins: pins, sha256: sha256))
        // No pins for the host: any chain passes.
        #expect(policy.pinnedKeyDigests(forHost: "example.com").isEmpty)
        #expect(SubjectPublicKeyInfo.chainMatches([nil], pins: [], sha256: sha256))
    }

    static let unknownKeys: [(type: KeyType, bits: Int, raw: Data, why: String)] = [
        (.ellipticCurve, 224, Data([0x04]) + Data(count: 56), "a curve other than P-256, P-384, P-521"),
        (.ellipticCurve, 256, Data([0x04]) + Data(count: 63), "a point of the wrong length"),
        (.ellipticCurve, 256, Data([0x02]) + Data(count: 32), "a compressed point"),
        (.ellipticCurve, 256, Data(), "no bytes"),
        (.rsa, 2048, Data([0x02, 0x01, 0x00]), "RSA bytes that are not a SEQUENCE"),
        (.rsa, 2048, Data(), "no bytes"),
    ]

    @Test("A key the SubjectPublicKeyInfo cannot be rebuilt for never matches", arguments: unknownKeys)
    func unknownKey(_ row: (type: KeyType, bits: Int, raw: Data, why: String)) {
        #expect(SubjectPublicKeyInfo.der(keyType: row.type, keySizeInBits: row.bits, key: row.raw) == nil, "\(row.why)")
    }

    /// Security framework codes `SecTrustEvaluateWithError` reports, the check each names, and the URLError code.
    static let checks: [(failure: TLSCheckFailure, words: String, code: URLError.Code)] = [
        (TLSCheckFailure(trustErrorCode: -67843), "unknown issuer", .serverCertificateHasUnknownRoot),
        (TLSCheckFailure(trustErrorCode: -67818), "has expired", .serverCertificateHasBadDate),
        (TLSCheckFailure(trustErrorCode: -67819), "not yet valid", .serverCertificateNotYetValid),
        (TLSCheckFailure(trustErrorCode: -67602), "not for this host name", .serverCertificateUntrusted),
        (TLSCheckFailure(trustErrorCode: -67820), "revoked", .serverCertificateUntrusted),
        (TLSCheckFailure(trustErrorCode: -67808), "Security framework error -67808", .serverCertificateUntrusted),
        (.pinMismatch, "pin mismatch", .serverCertificateUntrusted),
        (.unreadableTrustRoot, "trust root", .serverCertificateUntrusted),
        (.unreadableClientIdentity(code: -25293), "requires a client certificate", .clientCertificateRequired),
    ]

    @Test("A failed check is a tlsFailure whose description names it", arguments: checks)
    func check(_ row: (failure: TLSCheckFailure, words: String, code: URLError.Code)) throws {
        let request = URLRequest(url: try #require(URL(string: "https://api.example.com/path")))

        let failure = TransportFailure(row.failure.urlError(for: request))

        #expect(failure.category == .tlsFailure)
        #expect(failure.urlError?.code == row.code)
        #expect(failure.description.contains(row.words), "\(failure)")
        #expect(failure.urlError?.failingURL?.host == "api.example.com")
    }

    @Test("The library's own session enforces everything but a PEM identity on Apple platforms, nothing on Linux")
    func enforcement() throws {
        let own = URLSessionTransport(configuration: SimpleNetworking.Configuration())
        let callers = URLSessionTransport(session: URLSession(configuration: .ephemeral))
        defer {
            own.close()
            callers.close()
        }

        #if canImport(FoundationNetworking)
            #expect(own.tlsEnforcement == [])
        #else
            #expect(own.tlsEnforcement == TLSRequirements.all.subtracting(.clientIdentityPEM))
        #endif
        #expect(callers.tlsEnforcement == [])
    }

    @Test("A request whose TLS policy is not its session's is refused before anything is sent")
    func otherPolicyRefused() async throws {
        let transport = URLSessionTransport(configuration: SimpleNetworking.Configuration())
        defer { transport.close() }
        var policy = TLSPolicy()
        policy.trustsOnlyAdditionalRoots = true
        let request = HTTPRequest(method: .get, url: try #require(URL(string: "https://127.0.0.1:9/")))

        let error = await #expect(throws: SimpleNetworkingError.self) {
            _ = try await transport.send(request, options: TransportOptions(timeout: 5, tls: policy))
        }

        guard case .unsupportedByTransport(let reason)? = error else {
            Issue.record("expected unsupportedByTransport, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("fixed when its session is made"), "\(reason)")
    }

    @Test(
        "Another policy that asks nothing of the request's host, or a plain http request, is sent",
        arguments: ["https://127.0.0.1:9/", "http://127.0.0.1:9/"])
    func otherPolicyNotApplying(_ url: String) async throws {
        let transport = URLSessionTransport(configuration: SimpleNetworking.Configuration())
        defer { transport.close() }
        var policy = TLSPolicy()
        policy.pins = [try PublicKeyPins(host: "api.example.com", [Self.p256Pin])]
        if url.hasPrefix("http:") { policy.trustsOnlyAdditionalRoots = true }
        let request = HTTPRequest(method: .get, url: try #require(URL(string: url)))

        // Nothing listens on port 9 of loopback: the attempt reaches the network and fails there.
        let error = await #expect(throws: SimpleNetworkingError.self) {
            _ = try await transport.send(request, options: TransportOptions(timeout: 5, tls: policy))
        }

        guard case .transportFailed? = error else {
            Issue.record("expected a transport failure, got \(String(describing: error))")
            return
        }
    }

    private static func bytes(_ hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            data.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return data
    }
}
