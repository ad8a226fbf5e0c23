import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The Swift blocks of the `///` comments in Sources/SimpleNetworkingTesting/, between `SYMBOL-SAMPLE: File#name` and
// `SYMBOL-SAMPLE-END`: `ReadmeTests.SymbolDocs` checks that each comment shows its region verbatim.
enum TestingSymbolSamples {
    static func eventStream(server: MockServer) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworkingTesting/MockServer+EventStreams.swift#reconnect
        server.route { request in
            // A reconnection carries the ID of the last event the client saw.
            let after = Int(request.lastEventID ?? "") ?? 0
            return .eventStream(
                [.retry(milliseconds: 10), .event(data: "tick \(after + 1)", id: "\(after + 1)"), .pause(0.05)],
                ending: .drop)
        }
        // SYMBOL-SAMPLE-END
    }

    static func mockServer() async throws -> Data {
        // SYMBOL-SAMPLE: Sources/SimpleNetworkingTesting/MockServer.swift#url-session
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.json(#"{"ok":true}"#))
        let (data, _) = try await URLSession.shared.data(from: server.url("/status"))
        #expect(server.requests.first?.path == "/status")
        // SYMBOL-SAMPLE-END
        return data
    }

    // swift-format-ignore: NeverForceUnwrap
    static func mockTransport() -> (MockTransport, SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworkingTesting/MockTransport.swift#replies
        let transport = MockTransport()
        transport.enqueue(.status(401))
        transport.enqueue(.json(#"{"id": 1}"#))
        let api = SimpleNetworking(baseURL: URL(string: "https://api.example.com")!, transport: transport)
        // SYMBOL-SAMPLE-END
        return (transport, api)
    }

    static func testClock() -> (TestClock, SimpleNetworking.Configuration) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworkingTesting/TestClock.swift#clock
        let clock = TestClock()
        var configuration = SimpleNetworking.Configuration()
        configuration.clock = clock.simpleClock
        // SYMBOL-SAMPLE-END
        return (clock, configuration)
    }
}

@Suite("The testing kit's symbol samples run")
struct TestingSymbolSampleRuns {
    @Test("URLSession gets the enqueued body from MockServer; MockTransport answers 401, then 200")
    func samples() async throws {
        #expect(try await TestingSymbolSamples.mockServer() == Data(#"{"ok":true}"#.utf8))
        let (_, api) = TestingSymbolSamples.mockTransport()
        await #expect(throws: SimpleNetworkingError.self) { try await api.get("/me").response() }
        #expect(try await api.get("/me").response().statusCode == 200)
    }
}

/// The conformance kits' samples, as a transport of one's own would run them. Disabled: `MyTransport` stands for
/// that transport (here URLSession's, which `TransportConformanceTests` and `CacheConformanceKitTests` already check
/// case by case), so running them again would only repeat those suites.
@Suite("The conformance kits' symbol samples", .disabled("the conformance suites run these checks over URLSession"))
struct TestingSymbolSampleTests {
    /// Stands for the transport under test: URLSession's, with the default configuration.
    private struct MyTransport: HTTPTransport {
        let base = URLSessionTransport(configuration: SimpleNetworking.Configuration())
        var capabilities: TransportCapabilities { base.capabilities }
        var tlsEnforcement: TLSRequirements { base.tlsEnforcement }

        func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
            async throws(SimpleNetworkingError) -> SimpleResponse
        {
            try await base.send(request, options: options, transfer: transfer)
        }

        func close() {
            base.close()
        }
    }

    // SYMBOL-SAMPLE: Sources/SimpleNetworkingTesting/TransportConformance.swift#conformance
    @Test func conformance() async {
        let failures = await TransportConformance { _ in MyTransport() }.run()
        #expect(failures.isEmpty, "\(failures)")
    }
    // SYMBOL-SAMPLE-END

    // SYMBOL-SAMPLE: Sources/SimpleNetworkingTesting/CacheConformance.swift#cache
    @Test(arguments: CacheConformance.caseIDs)
    func cache(caseID: String) async {
        let failure = await CacheConformance { _ in MyTransport() }.run(caseID)
        #expect(failure == nil, "\(caseID): \(failure ?? "")")
    }
    // SYMBOL-SAMPLE-END
}
