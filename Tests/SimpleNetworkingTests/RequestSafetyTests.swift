import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The framing and connection-specific header fields a caller may not set: RFC 9112 frames the message with
/// `Content-Length` and `Transfer-Encoding`, and RFC 9110 section 7.6.1 makes `Connection`, `Keep-Alive`, `Upgrade`,
/// `TE`, `Trailer` and `Proxy-Connection` the connection's own (the same list as Go's reverse proxy's hop-by-hop
/// headers and the fields Go's request writer sets itself). Odd spellings check that the match ignores case.
private let framingHeaders: [(name: String, value: String)] = [
    ("Content-Length", "3"), ("content-length", "0"), ("Transfer-Encoding", "chunked"),
    ("TRANSFER-ENCODING", "identity"), ("Connection", "close"), ("connection", "Upgrade"),
    ("Keep-Alive", "timeout=5"), ("Upgrade", "h2c"), ("TE", "trailers"), ("te", "gzip"), ("Trailer", "X-Checksum"),
    ("Proxy-Connection", "keep-alive"), ("Host", "evil.example"), ("hOsT", "evil.example"),
]

/// Where a header is set.
enum HeaderSource: String, Sendable, CaseIterable, CustomStringConvertible {
    case request = "on the request"
    case defaults = "in the default headers"
    var description: String { rawValue }
}

@Suite("Requests cannot smuggle, climb out of the base path, leak user info or crash the client")
struct RequestSafetyTests {
    // MARK: Framing headers

    @Test("A caller-set Content-Length cannot smuggle a second request; the library frames the body itself")
    func smuggling() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { .text("echo:" + $0.bodyText) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let payload = "xyz" + "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

        let error = await failure(of: api.post("/echo").header("Content-Length", "3").body(payload))
        let response = try await api.post("/echo").body(payload).response()
        // A smuggled request would be read from the kept-alive connection right after the first one.
        try await Task.sleep(nanoseconds: 200_000_000)

        #expect(server.requests.map(\.path) == ["/echo"])
        #expect(server.requests.first?.header("Content-Length") == String(payload.utf8.count))
        #expect(response.string == "echo:" + payload)
        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Content-Length"))
    }

    @Test(
        "Every framing header is refused, by name and in any case, and nothing is sent",
        arguments: framingHeaders, HeaderSource.allCases)
    func framingHeaderRefused(header: (name: String, value: String), source: HeaderSource) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let api = makeLoopbackClient(server) {
            if source == .defaults { $0.defaultHeaders = [header.name: header.value] }
        }
        defer { api.close() }
        let request = api.post("/framed").body("body")
        if source == .request { request.header(header.name, header.value) }

        let error = await failure(of: request)

        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(header.name))
        #expect(server.requestCount == 0)
    }

    @Test("Names that only look like framing headers are sent")
    func nearMisses() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let api = makeLoopbackClient(server) { $0.defaultHeaders = ["X-Host": "h"] }
        defer { api.close() }
        let names = ["Upgrade-Insecure-Requests", "Hosts", "Content-Lengths", "X-Connection", "Trailers", "TEa", "T"]
        let request = api.get("/near")
        for name in names { request.header(name, "1") }

        _ = try await request.response()

        let received = try #require(server.requests.first)
        for name in names + ["X-Host"] { #expect(received.header(name) != nil, "\(name)") }
    }

    @Test("Configuration.allowsHostHeader sends a caller's Host, and a redirect to another origin drops it")
    func allowedHostHeader() async throws {
        let home = try MockServer()
        let other = try MockServer()
        defer { home.shutdown(); other.shutdown() }
        let target = other.url("/landed", host: "localhost").absoluteString
        home.route { $0.path == "/same" ? .text("same") : .redirect(to: target) }
        other.route { _ in .text("other") }
        let api = makeLoopbackClient(home) { $0.allowsHostHeader = true }
        defer { api.close() }

        _ = try await api.get("/same").header("Host", "api.example").response()
        let redirected = try await api.get("/away").header("Host", "api.example").response()

        #expect(redirected.string == "other")
        #expect(home.requests.map { $0.header("Host") } == ["api.example", "api.example"])
        #expect(other.requests.first?.header("Host") == "localhost:\(other.port)")
    }
}
