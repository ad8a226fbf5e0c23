import Foundation
import SimpleNetworking
import Testing

// The Swift blocks of the `///` comments in Sources/SimpleNetworking/Observability/, between
// `SYMBOL-SAMPLE: File#name` and `SYMBOL-SAMPLE-END`: `ReadmeTests.SymbolDocs` checks that each comment shows its
// region verbatim.
enum ObservabilitySymbolSamples {
    /// Stands for the app's logger (swift-log's `Logger`, say), which the samples take as given.
    struct Logger: Sendable {
        func debug(_ message: String) {}
    }

    static func eventHandler(logger: Logger) -> SimpleNetworking.Configuration {
        var configuration = SimpleNetworking.Configuration()
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Observability/NetworkEvent.swift#event-handler
        configuration.eventHandler = { event in logger.debug("\(event)") }
        // SYMBOL-SAMPLE-END
        return configuration
    }

    static func cURL(api: SimpleNetworking) throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Observability/SimpleRequest+CURL.swift#curl
        print(try api.get("/me").header("Authorization", "Bearer abc").cURLDescription(on: api))
        // curl 'https://api.example.com/me' \
        //   -H 'Authorization: <redacted>'
        // SYMBOL-SAMPLE-END
    }
}
