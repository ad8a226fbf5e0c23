import Foundation
import SimpleNetworking
import Testing

/// A transport written against the earlier protocol, moved as CHANGELOG.md's "Moving a custom transport" says: its
/// `send(_:options:)` renamed to the transfer form, its whole response handed over, no capabilities declared and no
/// `tlsEnforcement` (the default, none).
private struct MovedTransport: HTTPTransport {
    var capabilities: TransportCapabilities { [] }

    func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        // What the earlier send(_:options:) returned: the whole response in memory.
        let whole = SimpleResponse(
            statusCode: 200, body: Data("\(request.method.rawValue) \(request.url.path)".utf8), url: request.url)
        return try await transfer.deliver(whole: whole)
    }
}

@Suite("A custom transport moved as the CHANGELOG says (issue 33)")
struct TransportMigrationTests {
    @Test("It compiles, answers plain requests, and streaming or a TLS policy is refused before it is called")
    func movedTransport() async throws {
        let base = try #require(URL(string: "https://api.example.com/v1"))
        let api = SimpleNetworking(baseURL: base, transport: MovedTransport())
        defer { api.close() }
        let response = try await api.get("/cats").response()
        #expect(String(decoding: response.body, as: UTF8.self) == "GET /v1/cats")

        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("moved-\(UUID().uuidString)")
        do {
            _ = try await api.get("/cats").download(to: destination)
            Issue.record("a transport without capabilities downloaded")
        } catch .unsupportedByTransport(let reason) {
            #expect(reason.contains("MovedTransport"), "\(reason)")
        }

        var configuration = SimpleNetworking.Configuration()
        configuration.tls.minimumVersion = .tls13
        let strict = SimpleNetworking(baseURL: base, transport: MovedTransport(), configuration: configuration)
        defer { strict.close() }
        do {
            _ = try await strict.get("/cats").response()
            Issue.record("a transport that enforces no TLS policy sent a request that asks for one")
        } catch .unsupportedByTransport(let reason) {
            #expect(reason.contains("MovedTransport"), "\(reason)")
        }
    }
}
