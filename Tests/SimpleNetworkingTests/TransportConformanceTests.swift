import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Transport conformance")
struct TransportConformanceTests {
    @Test("The URLSession transport passes the conformance kit", arguments: TransportConformance.checks)
    func urlSession(check: String) async {
        let kit = TransportConformance { _ in URLSessionTransport(configuration: SimpleNetworking.Configuration()) }
        let failure = await kit.run(check)
        #expect(failure == nil, "\(check): \(failure ?? "")")
    }

    @Test("MockTransport serving a MockServer passes the conformance kit", arguments: TransportConformance.checks)
    func mockTransport(check: String) async {
        let failure = await TransportConformance { MockTransport(serving: $0) }.run(check)
        #expect(failure == nil, "\(check): \(failure ?? "")")
    }

    @Test("The kit catches a transport that breaks the contract")
    func catchesBrokenTransport() async {
        // Follows nothing, limits nothing, never times out: answers every request with a 302 and a large body.
        struct Careless: HTTPTransport {
            var capabilities: TransportCapabilities { .streaming }

            func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                let response = SimpleResponse(
                    statusCode: 200, headers: [:], body: Data(count: 1 << 20), url: request.url)
                _ = try? await transfer.deliver(whole: response)
                return SimpleResponse(statusCode: 200, url: request.url)
            }
        }
        let failures = await TransportConformance { _ in Careless() }.run()
        #expect(Set(failures.map(\.check)) == Set(TransportConformance.checks))
    }

    @Test(
        "The kit catches a transport that collects the body before handing it over while claiming to stream",
        arguments: ["firstBytesBeforeEnd", "endlessBodyAbandoned"])
    func catchesBufferingTransport(check: String) async {
        struct Buffering: HTTPTransport {
            let inner: URLSessionTransport
            var capabilities: TransportCapabilities { .streaming }

            func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                try await transfer.deliver(whole: try await inner.send(request, options: options))
            }

            func close() { inner.close() }
        }
        let kit = TransportConformance { _ in
            Buffering(inner: URLSessionTransport(configuration: SimpleNetworking.Configuration()))
        }
        let failure = await kit.run(check)
        #expect(failure != nil)
    }
}
