import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

@Suite("AsyncHTTPClient transport")
struct AsyncHTTPClientTransportTests {
    @Test("It passes the transport conformance kit", arguments: TransportConformance.checks)
    func conformance(check: String) async {
        let failure = await TransportConformance { _ in AsyncHTTPClientTransport() }.run(check)
        #expect(failure == nil, "\(check): \(failure ?? "")")
    }

    @Test("The attempt timeout bounds the body too: a body that stalls after the head fails as timedOut")
    func stalledBodyTimesOut() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(status: 200, body: Data(count: 1000), faults: [.delayBody(20)]) }
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        let start = Date()
        let error = await failure(
            of: transport, HTTPRequest(method: .get, url: server.url("/stalled")), TransportOptions(timeout: 0.5))
        let elapsed = Date().timeIntervalSince(start)
        guard case .transportFailed(let failure, _) = error else {
            Issue.record("expected a timedOut failure, got \(String(describing: error))")
            return
        }
        #expect(failure.category == .timedOut)
        // Loose for a busy machine, as the conformance kit's own check is: the body is held for 20 s, so only a timeout
        // that left the body unbounded takes that long.
        #expect(elapsed < 15, "the 0.5 s timeout fired after \(elapsed) s")
    }

    @Test("A gzip body arrives decoded, and the size limit counts decoded bytes")
    func decompression() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: Gzip.letters) }
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        let request = HTTPRequest(method: .get, url: server.url("/letters"))

        let response = try await transport.send(request, options: TransportOptions(timeout: 10))
        #expect(response.body == Data(repeating: UInt8(ascii: "a"), count: Gzip.lettersDecodedSize))
        #expect(server.requests.first?.header("Accept-Encoding") == "gzip, deflate")

        let limited = TransportOptions(timeout: 10, maximumResponseBodySize: 10_000)
        let error = await failure(of: transport, request, limited)
        guard case .responseTooLarge(limit: 10_000) = error else {
            Issue.record("expected responseTooLarge(limit: 10000), got \(String(describing: error))")
            return
        }
    }

    @Test("A request's own Accept-Encoding is sent as it is")
    func ownAcceptEncoding() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("plain") }
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        let request = HTTPRequest(method: .get, url: server.url("/"), headers: ["accept-encoding": "identity"])
        let response = try await transport.send(request, options: TransportOptions(timeout: 10))
        #expect(response.string == "plain")
        #expect(server.requests.first?.header("Accept-Encoding") == "identity")
    }

    @Test("A client over the engine follows redirects by its own rules and decodes the answer")
    func throughTheClient() async throws {
        struct Greeting: Decodable, Equatable { let message: String }
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/old" ? .redirect(to: "/new", status: 301) : .json(#"{"message":"hello"}"#)
        }
        let client = SimpleNetworking(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        defer { client.close() }
        let greeting = try await client.get("/old").decode(Greeting.self)
        #expect(greeting == Greeting(message: "hello"))
        #expect(server.requests.map(\.path) == ["/old", "/new"])
    }

    @Test("After close() or shutdown() a request fails with an error that says the transport was closed")
    func lifecycle() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let transport = AsyncHTTPClientTransport()
        let request = HTTPRequest(method: .get, url: server.url("/"))
        _ = try await transport.send(request, options: TransportOptions(timeout: 10))
        transport.close()
        transport.close()
        let closed = await failure(of: transport, request)
        #expect(closed?.transportFailure?.detail?.contains("was closed") == true, "\(String(describing: closed))")
        #expect(closed.map { "\($0)" }?.contains("cancelled") == false)
        try await transport.shutdown()

        let other = AsyncHTTPClientTransport()
        try await other.shutdown()
        let shutDown = await failure(of: other, request)
        #expect(shutDown?.transportFailure?.detail?.contains("was closed") == true, "\(String(describing: shutDown))")
    }

    @Test("Requests beyond the pool's size wait for a connection and reuse it")
    func poolSize() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(status: 200, body: Data("ok".utf8), faults: [.delayHeaders(0.05)]) }
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.maximumConnectionsPerHost = 2
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        defer { transport.close() }
        let request = HTTPRequest(method: .get, url: server.url("/"))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await transport.send(request, options: TransportOptions(timeout: 10)).statusCode }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        #expect(Set(server.requests.map(\.connectionIndex)).count <= 2)
    }
}

/// The error `transport` throws for `request`, or `nil` when it answers.
private func failure(
    of transport: AsyncHTTPClientTransport, _ request: HTTPRequest,
    _ options: TransportOptions = TransportOptions(timeout: 10)
) async -> SimpleNetworkingError? {
    do throws(SimpleNetworkingError) {
        _ = try await transport.send(request, options: options)
        return nil
    } catch {
        return error
    }
}

/// A gzip member of 100,000 ASCII `a`s, as `gzip` writes it: a fixed header, 96 zero bytes in the deflate stream,
/// then its CRC-32 and length.
private enum Gzip {
    static let lettersDecodedSize = 100_000
    static let letters =
        Data([
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xed, 0xc1, 0x31, 0x01, 0x00, 0x00, 0x00, 0xc2,
            0xa0, 0xac, 0xeb, 0x5f, 0xc2, 0x1a, 0x1e, 0x40, 0x01,
        ]) + Data(count: 96) + Data([0xaf, 0x06, 0x87, 0xfa, 0xe2, 0x1b, 0xa0, 0x86, 0x01, 0x00])
}
