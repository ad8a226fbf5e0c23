import Foundation
import SimpleNetworking
import Testing

// The samples of the DocC article TLS.md.

func tlsPrivateRoot(caPEM: String, internalURL: URL) throws -> SimpleNetworking {
    // DOC-SAMPLE: TLS/private-root
    var configuration = SimpleNetworking.Configuration()
    configuration.tls.additionalTrustRoots = try TLSCertificate.certificates(pem: caPEM)
    let api = SimpleNetworking(baseURL: internalURL, configuration: configuration)
    // DOC-SAMPLE-END
    return api
}

func tlsPins() throws -> SimpleNetworking.Configuration {
    // DOC-SAMPLE: TLS/pins
    var configuration = SimpleNetworking.Configuration()
    configuration.tls.pins = [
        try PublicKeyPins(
            host: "**.example.com",
            [
                "sha256/AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",  // the key in use
                "sha256/ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=",  // a backup key, not yet deployed
            ])
    ]
    // DOC-SAMPLE-END
    return configuration
}

func tlsMutual(chainPEM: String, keyPEM: String, p12: Data) throws -> SimpleNetworking.Configuration {
    // DOC-SAMPLE: TLS/mutual
    var configuration = SimpleNetworking.Configuration()
    // PEM: the AsyncHTTPClient engine.
    configuration.tls.clientIdentity = try TLSClientIdentity(
        certificateChain: TLSCertificate.certificates(pem: chainPEM), privateKeyPEM: keyPEM)
    // PKCS #12: the AsyncHTTPClient engine, and URLSession on Apple platforms.
    configuration.tls.clientIdentity = try TLSClientIdentity(pkcs12: p12, password: "secret")
    configuration.tls.minimumVersion = .tls13
    // DOC-SAMPLE-END
    return configuration
}

func tlsRefused(api: SimpleNetworking) async {
    // DOC-SAMPLE: TLS/refused
    do {
        _ = try await api.get("/health").response()
    } catch .unsupportedByTransport(let reason) {
        print(reason)  // "URLSession on Linux cannot enforce public-key pins of the client's TLS policy; ..."
    } catch {
        print(error)  // a failed check is a transportFailed error whose category is tlsFailure
    }
    // DOC-SAMPLE-END
}

@Suite("TLS article samples")
struct TLSSampleTests {
    @Test("The pins sample parses")
    func pinsParse() throws {
        let configuration = try tlsPins()
        #expect(configuration.tls.pins.first?.digests.count == 2)
    }
}
