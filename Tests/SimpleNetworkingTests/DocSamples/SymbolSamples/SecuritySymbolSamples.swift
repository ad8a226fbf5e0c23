import Foundation
import SimpleNetworking
import Testing

// The Swift blocks of the `///` comments in Sources/SimpleNetworking/TLS/ and Safety/RedirectPolicy.swift, between
// `SYMBOL-SAMPLE: File#name` and `SYMBOL-SAMPLE-END`: `ReadmeTests.SymbolDocs` checks that each comment shows its
// region verbatim.
enum SecuritySymbolSamples {
    static func redirects(api: SimpleNetworking) -> (SimpleNetworking.Configuration, SimpleRequest) {
        var configuration = SimpleNetworking.Configuration()
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Safety/RedirectPolicy.swift#policies
        configuration.redirectPolicy = .sameOrigin
        api.get("/download").redirects(.follow(limit: 3))
        // SYMBOL-SAMPLE-END
        return (configuration, api.get("/download"))
    }

    static func pins() throws -> PublicKeyPins {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/TLS/PublicKeyPins.swift#pins
        let pins = try PublicKeyPins(host: "**.example.com", ["sha256/AAAA...=", "sha256/BBBB...="])
        // SYMBOL-SAMPLE-END
        return pins
    }

    static func tlsPolicy(caPEM: String) throws -> SimpleNetworking.Configuration {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/TLS/TLSPolicy.swift#policy
        var configuration = SimpleNetworking.Configuration()
        configuration.tls.additionalTrustRoots = try TLSCertificate.certificates(pem: caPEM)
        configuration.tls.pins = [try PublicKeyPins(host: "**.example.com", ["sha256/..."])]
        // SYMBOL-SAMPLE-END
        return configuration
    }
}
