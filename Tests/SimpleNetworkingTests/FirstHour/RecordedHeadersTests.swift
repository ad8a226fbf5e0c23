import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("A recorded request's headers are HTTPHeaders")
struct RecordedHeadersTests {
    @Test("httpHeaders keeps the order, the names as received and repeated fields; header(_:) reads the first")
    func orderRepeatsAndCase() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let transport = MockTransport(serving: server)
        let api = SimpleNetworking(baseURL: server.baseURL, transport: transport)
        defer { api.close() }

        _ = try await api.get("/x")
            .intercept(with: RepeatedHeader())
            .header("X-Single", "one")
            .response()

        let request = try #require(server.requests.first)
        #expect(request.httpHeaders.values(for: "x-repeated") == ["a", "b"])
        #expect(request.header("X-REPEATED") == "a")
        #expect(request.httpHeaders["x-single"] == "one")
        let names = request.httpHeaders.fields.map(\.name)
        #expect(names.contains("X-Single") && names.filter { $0 == "X-Repeated" }.count == 2, "\(names)")
    }

    @Test("Over loopback, httpHeaders holds what the socket received, Host first")
    func overLoopback() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.get("/x").header("X-Custom", "v").response()

        let request = try #require(server.requests.first)
        #expect(request.httpHeaders.fields.first?.name.lowercased() == "host")
        #expect(request.httpHeaders["X-Custom"] == "v" && request.header("x-custom") == "v")
        #expect(request.httpHeaders.count >= 2)
    }
}

/// Adds the same header twice, as `add(name:value:)` keeps repeated fields.
private struct RepeatedHeader: RequestInterceptor {
    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        var request = request
        request.headers.add(name: "X-Repeated", value: "a")
        request.headers.add(name: "X-Repeated", value: "b")
        return try await next(request)
    }
}
