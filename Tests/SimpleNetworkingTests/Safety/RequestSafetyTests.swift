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

/// Where a timeout is set.
enum TimeoutSource: String, Sendable, CaseIterable, CustomStringConvertible {
    case request = "request.timeout(_:)"
    case configuration = "Configuration.timeout"
    var description: String { rawValue }
}

/// A transport that answers 200 at once and records what each request handed it.
private final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked Sendable: `sent` is only touched under `lock`.
    private let lock = NSLock()
    private var sent: [(request: HTTPRequest, options: TransportOptions)] = []

    var calls: [(request: HTTPRequest, options: TransportOptions)] { lock.withLock { sent } }

    var capabilities: TransportCapabilities { [] }

    func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        lock.withLock { sent.append((request, options)) }
        return SimpleResponse(statusCode: 200, headers: [:], body: Data(), url: request.url)
    }
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

    // MARK: Dot segments

    /// What a path sent under the base path `/v1` becomes on the wire; `nil` means refused with `invalidURL`.
    /// Literal dot segments are resolved as RFC 3986 section 5.2.4 does; encoded or disguised ones (`%2e`, a `\`,
    /// `%2F` or `%5C` as separator, `..;`) are refused, as is anything that climbs above the base path.
    @Test(
        "Dot segments never take a path above the base path",
        arguments: [
            ("/../admin", nil), ("../admin", nil), ("..", nil), ("/..", nil), ("/./../admin", nil),
            ("/a/../../admin", nil), ("/a/b/../../../admin", nil), ("/%2e%2e/admin", nil), ("/%2E%2E/admin", nil),
            ("/.%2e/admin", nil), ("/%2e./admin", nil), ("/.%2E/admin", nil), ("/%2E./admin", nil),
            ("/a/%2e%2e/b", nil), ("/a/%2e/b", nil), ("/..%2Fadmin", nil), ("/..%2fadmin", nil),
            ("/%2e%2e%2fadmin", nil), ("/..\\admin", nil), ("/a\\..\\..\\admin", nil), ("\\..\\admin", nil),
            ("/..%5Cadmin", nil), ("/..%5cadmin", nil), ("/..;/admin", nil), ("/..;x=1/admin", nil),
            ("/a/../b", "/v1/b"), ("/a/./b", "/v1/a/b"), ("/./b", "/v1/b"), ("/a/..", "/v1/"), ("/a/.", "/v1/a/"),
            ("/a/b/../../c", "/v1/c"), ("/a//../b", "/v1/a/b"), ("/.well-known/x", "/v1/.well-known/x"),
            ("/a..b/..c/d..", "/v1/a..b/..c/d.."), ("/...", "/v1/..."), ("/file.json", "/v1/file.json"),
            ("/a/../b?next=../../x", "/v1/b"), ("/%2e%2e.txt", "/v1/%2e%2e.txt"), ("/a;v=1/b", "/v1/a;v=1/b"),
        ] as [(String, String?)])
    func dotSegments(path: String, expected: String?) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let api = makeLoopbackClient(server.url("/v1"))
        defer { api.close() }

        let error = await failure(of: api.get(path))

        if let expected {
            #expect(error == nil)
            #expect(server.requests.map(\.path) == [expected])
        } else {
            guard case .invalidURL = error else {
                let sent = server.requests.map(\.path)
                Issue.record("expected invalidURL, got \(String(describing: error)); sent \(sent)")
                return
            }
            #expect(server.requestCount == 0)
        }
    }

    // MARK: User info

    @Test(
        "User info in a redirect target never becomes an Authorization header",
        arguments: [("localhost", false), ("127.0.0.1", false), ("127.0.0.1", true)])
    func redirectUserInfo(host: String, sameServer: Bool) async throws {
        let home = try MockServer()
        let other = try MockServer()
        defer { home.shutdown(); other.shutdown() }
        let target = "http://user:secret@\(host):\(sameServer ? home.port : other.port)/landed"
        home.route { $0.path == "/start" ? .redirect(to: target) : .text("landed") }
        other.route { _ in .text("landed") }
        let api = makeLoopbackClient(home)
        defer { api.close() }

        let response = try await api.get("/start").response()

        let received = home.requests + other.requests
        #expect(response.string == "landed")
        #expect(received.map(\.path) == ["/start", "/landed"])
        #expect(received.allSatisfy { $0.header("Authorization") == nil })
    }

    @Test("User info in an absolute request URL is refused; in the base URL it goes to that origin; a path adds none")
    func requestUserInfo() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let withUserInfo = try #require(URL(string: "http://user:secret@127.0.0.1:\(server.port)/v1"))
        let byBase = makeLoopbackClient(withUserInfo)
        let api = makeLoopbackClient(server)
        defer { byBase.close(); api.close() }

        let absoluteError = await failure(of: api.request(.get, url: withUserInfo))
        guard case .invalidURL(let reason) = absoluteError else {
            Issue.record("expected invalidURL, got \(String(describing: absoluteError))")
            return
        }
        #expect(reason.contains("user info"))
        let pathError = await failure(of: api.get("user:secret@127.0.0.1:\(server.port)/x"))
        #expect(pathError == nil)
        #expect(server.requests.map(\.path) == ["/user:secret@127.0.0.1:\(server.port)/x"])
        #expect(server.requests.allSatisfy { $0.header("Authorization") == nil })

        let baseError = await failure(of: byBase.get("/x"))
        #expect(baseError == nil)
        #expect(server.requests.map(\.path).last == "/v1/x")
        // user:secret, as Basic credentials, to the base URL's own origin.
        #expect(server.requests.last?.header("Authorization") == "Basic dXNlcjpzZWNyZXQ=")
    }

    // MARK: Bodies on GET and HEAD

    @Test(
        "A body on GET or HEAD is refused by the URLSession transport before anything is sent",
        arguments: [HTTPMethod.get, .head], [false, true])
    func bodyOnGetOrHead(method: HTTPMethod, json: Bool) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let request = api.request(method, "/with-body")
        if json { request.body(json: ["a": 1]) } else { request.body("text") }

        let error = await failure(of: request)
        let empty = await failure(of: api.request(method, "/empty-body").body(Data()))

        guard case .unsupportedByTransport(let reason) = error else {
            Issue.record("expected unsupportedByTransport, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(method.rawValue) && reason.contains("body") && reason.contains("URLSession"))
        #expect(empty == nil)
        #expect(server.requests.map(\.path) == ["/empty-body"])
    }

    // MARK: URLs FoundationNetworking refuses

    /// How a URL with an upper-case scheme reaches the client.
    enum SchemeRoute: String, Sendable, CaseIterable, CustomStringConvertible {
        case base = "base URL"
        case absolute = "absolute URL"
        case redirect = "redirect target"
        var description: String { rawValue }
    }

    @Test("An upper-case scheme works", arguments: SchemeRoute.allCases)
    func upperCaseScheme(route: SchemeRoute) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let upper = "HTTP://127.0.0.1:\(server.port)"
        server.route { $0.path == "/start" ? .redirect(to: upper + "/landed") : .text("ok") }
        let api = makeLoopbackClient(route == .base ? try #require(URL(string: upper)) : server.baseURL)
        defer { api.close() }

        let request: SimpleRequest
        switch route {
        case .base: request = api.get("/landed")
        case .absolute: request = api.request(.get, url: try #require(URL(string: upper + "/landed")))
        case .redirect: request = api.get("/start")
        }
        let response = try await request.response()

        #expect(response.string == "ok")
        #expect(server.requests.last?.path == "/landed")
    }

    /// Hosts libcurl rewrites (IPv6 literals, shortened or non-decimal IPv4 forms), so that FoundationNetworking
    /// fails them with `badURL`; and hosts it keeps.
    @Test(
        "Hosts FoundationNetworking cannot send to are refused by the URLSession transport on Linux",
        arguments: [
            ("[::1]", true), ("[0:0:0:0:0:0:0:1]", true), ("[::ffff:127.0.0.1]", true), ("127.1", true),
            ("2130706433", true), ("0x7f.0.0.1", true), ("0177.0.0.1", true), ("127.000.000.001", true),
            ("127.0.0.01", true), ("127.0.0.1", false), ("localhost", false), ("LOCALHOST", false),
        ])
    func unsupportedHosts(host: String, refusedOnLinux: Bool) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let url = try #require(URL(string: "http://\(host):\(server.port)"))
        server.route { $0.path == "/start" ? .redirect(to: url.absoluteString + "/landed") : .text("ok") }
        let byBase = makeLoopbackClient(url)
        let api = makeLoopbackClient(server)
        defer { byBase.close(); api.close() }

        let baseError = await failure(of: byBase.get("/landed"))
        let absoluteError = await failure(of: api.request(.get, url: url.appendingPathComponent("landed")))
        let redirectError = await failure(of: api.get("/start"))

        #if canImport(FoundationNetworking)
            if refusedOnLinux {
                // The redirect's hop to the host is refused by the transport too, before it is sent.
                for error in [baseError, absoluteError, redirectError] {
                    guard case .unsupportedByTransport(let reason) = error else {
                        Issue.record("expected unsupportedByTransport, got \(String(describing: error))")
                        continue
                    }
                    #expect(reason.contains("URLSession on Linux") && reason.contains("host"))
                }
                #expect(server.requests.map(\.path) == ["/start"])
                return
            }
        #endif
        if !refusedOnLinux {
            #expect(baseError == nil && absoluteError == nil && redirectError == nil)
            #expect(server.requests.filter { $0.path == "/landed" }.count == 3)
        }
    }

    // MARK: Timeouts

    @Test(
        "Extreme timeouts never trap: the request is sent and answered",
        arguments: [
            TimeInterval.infinity, .greatestFiniteMagnitude, 1e16, 1e300, .nan, 0, -1, -.infinity,
            -.greatestFiniteMagnitude,
        ], TimeoutSource.allCases)
    func extremeTimeouts(seconds: TimeInterval, source: TimeoutSource) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let api = makeLoopbackClient(server) { if source == .configuration { $0.timeout = seconds } }
        defer { api.close() }
        let request = api.get("/t")
        if source == .request { request.timeout(seconds) }

        let response = try await request.response()

        #expect(response.string == "ok")
        #expect(server.requestCount == 1)
    }

    /// What reaches the transport and URLSession: at most `Configuration.maximumTimeout`; NaN, zero and negative
    /// values mean the client's timeout, and an unusable client timeout means the default of 60 s.
    @Test(
        "Timeouts handed on are finite and bounded",
        arguments: [
            (TimeInterval.infinity, 60, 10_000_000), (.greatestFiniteMagnitude, 60, 10_000_000), (.nan, 60, 60),
            (0, 60, 60), (-5, 60, 60), (2.5, 60, 2.5), (20_000_000, 60, 10_000_000), (.nan, 4, 4), (-1, 4, 4),
            (.nan, .infinity, 10_000_000), (.nan, .nan, 60), (0, 0, 60), (-1, -.infinity, 60), (3, .nan, 3),
        ] as [(TimeInterval, TimeInterval, TimeInterval)])
    func timeoutsHandedOn(requested: TimeInterval, configured: TimeInterval, expected: TimeInterval) async throws {
        let transport = RecordingTransport()
        var configuration = SimpleNetworking.Configuration()
        configuration.timeout = configured
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport, configuration: configuration)

        _ = try await api.get("/t").timeout(requested).response()

        let call = try #require(transport.calls.first)
        #expect(abs(call.options.timeout - expected) < 1)
        #expect(call.options.timeout <= SimpleNetworking.Configuration.maximumTimeout)
        // What the URLSession transport hands to URLSession for these options.
        let handedOn = URLSessionTransport.urlRequest(for: call.request, timeout: call.options.timeout)
        #expect(handedOn.timeoutInterval.isFinite)
        #expect(handedOn.timeoutInterval <= SimpleNetworking.Configuration.maximumTimeout)
        #expect(handedOn.timeoutInterval >= expected.rounded(.down))
    }

    @Test("A NaN request timeout falls back to the client's timeout, which still fires")
    func nanFallsBackToClientTimeout() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: Data("late".utf8), faults: [.delayHeaders(60)]) }
        let api = makeLoopbackClient(server) { $0.timeout = 0.3 }
        defer { api.close() }
        let stopwatch = WireStopwatch()

        let error = await failure(of: api.get("/slow").timeout(.nan))

        #expect(error?.isTimeout == true)
        #expect(stopwatch.stop().net < 5 * timeScale)  // the server answers after 60 s
    }
}
