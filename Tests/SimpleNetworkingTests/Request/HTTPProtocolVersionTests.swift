import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("The HTTP version a response came over")
struct HTTPProtocolVersionTests {
    @Test("Versions read as HTTP/1.0, HTTP/1.1, HTTP/2 and HTTP/3")
    func descriptions() {
        #expect(HTTPProtocolVersion.http10.description == "HTTP/1.0")
        #expect(HTTPProtocolVersion.http11.description == "HTTP/1.1")
        #expect(HTTPProtocolVersion.http2.description == "HTTP/2")
        #expect(HTTPProtocolVersion(major: 3, minor: 0).description == "HTTP/3")
        #expect(HTTPProtocolVersion(major: 2, minor: 0) == .http2)
    }

    @Test("The transport's version reaches the response and its attempt; none said is nil")
    func recordedOnTheAttempt() async throws {
        let transport = MockTransport()
        transport.enqueue(.init(.success(SimpleResponse(statusCode: 503, httpVersion: .http11))))
        transport.enqueue(.init(.success(SimpleResponse(statusCode: 200, body: Data("ok".utf8), httpVersion: .http2))))
        transport.enqueue(.status(200))
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 2, backoff: .init(base: 0))
        let api = SimpleNetworking(
            baseURL: URL(string: "https://api.example.com")!, transport: transport, configuration: configuration)
        let response = try await api.get("/versions").response()
        #expect(response.httpVersion == .http2)
        #expect(response.attempts.map(\.httpVersion) == [.http11, .http2])
        #expect(response.attempts.last?.description == "#2 after 0 ms: 200 over HTTP/2")
        let plain = try await api.get("/plain").response()
        #expect(plain.httpVersion == nil && plain.attempts.last?.httpVersion == nil)
    }
}
