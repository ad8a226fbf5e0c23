import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The jar on the wire, over real loopback sockets. `127.0.0.1` and `localhost` are two hosts (two origins) on the
/// same server; cookies, unlike origins, do not tell ports apart (RFC 6265).
@Suite("Cookies over loopback")
struct CookieLoopbackTests {
    static let sessionCookie = (name: "Set-Cookie", value: "session=abc-secret; Path=/; HttpOnly")

    @Test("A login cookie is sent back on the next request, and the caller's own Cookie header joins it")
    func loginCookieSentBack() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { $0.path == "/login" ? .text("welcome", headers: [Self.sessionCookie]) : .text("me") }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.post("/login").response()
        _ = try await api.get("/me").response()
        _ = try await api.get("/me").header("Cookie", "own=1").response()

        #expect(
            server.requests.map { $0.header("Cookie") } == [nil, "session=abc-secret", "own=1; session=abc-secret"])
        #expect(api.cookieJar?.cookies.first?.isHTTPOnly == true)
    }

    /// Through the URLSession transport, which joins repeated fields with ", ": a server that echoes input into one
    /// cookie's value cannot set another cookie through it, and a nameless field between two others is dropped.
    @Test("Joined Set-Cookie fields: an echoed value sets no second cookie, a nameless field is no part of one")
    func joinedFieldsReadSafely() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/login": .text("in", headers: [Self.sessionCookie])
            case "/preferences": .text("ok", headers: [("Set-Cookie", "pref=en, session=attacker; Path=/")])
            case "/three":
                .text("ok", headers: [("Set-Cookie", "a=b; Path=/"), ("Set-Cookie", "="), ("Set-Cookie", "c=d")])
            default: .text("me")
            }
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.post("/login").response()
        _ = try await api.post("/preferences").response()
        _ = try await api.get("/three").response()
        _ = try await api.get("/me").response()

        let jar = try #require(api.cookieJar)
        #expect(jar.cookies.first { $0.name == "session" }?.value == "abc-secret")
        #expect(jar.cookies.first { $0.name == "pref" }?.value == "en, session=attacker")
        #expect(jar.cookies.map(\.name).sorted() == ["a", "c", "pref", "session"])
    }

    /// RFC 6265 section 5.2 has user agents read octets; the ASCII grammar of section 4.1.1 binds servers.
    @Test("A cookie with a UTF-8 name and value is stored and sent back byte for byte")
    func unicodeCookie() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/login"
                ? .text("in", headers: [("Set-Cookie", "foo=春节回家路·春运完全手册; Path=/"), ("Set-Cookie", "名前=値; Path=/")])
                : .text("me")
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.post("/login").response()
        _ = try await api.get("/me").response()

        let sent = try #require(server.requests.last?.header("Cookie"))
        #expect(sent == "foo=春节回家路·春运完全手册; 名前=値")
    }

    @Test(
        "A Set-Cookie that has expired deletes the cookie",
        arguments: ["session=; Max-Age=0", "session=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT"])
    func expiredSetCookieDeletes(deletion: String) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/login": .text("in", headers: [Self.sessionCookie])
            case "/logout": .text("out", headers: [("Set-Cookie", deletion + "; Path=/")])
            default: .text("me")
            }
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.post("/login").response()
        _ = try await api.get("/me").response()
        _ = try await api.post("/logout").response()
        _ = try await api.get("/me").response()

        #expect(server.requests.map { $0.header("Cookie") } == [nil, "session=abc-secret", "session=abc-secret", nil])
        #expect(api.cookieJar?.cookies.isEmpty == true)
    }

    /// Where a redirect from `127.0.0.1` goes, and the `Cookie` header that arrives there.
    enum Landing: String, Sendable, CaseIterable, CustomStringConvertible {
        case samePlace = "the same origin"
        case otherHost = "localhost, the same port"
        case otherPort = "127.0.0.1, another port"

        var description: String { rawValue }

        /// The jar scopes by host and ignores ports; the caller's own `Cookie` header keeps the origin rule and is
        /// dropped once the chain leaves the origin, a port change included. The jar's cookies of the first hop
        /// are never carried over as part of that header: each hop gets the jar's own, once.
        var expectedCookie: String? {
            switch self {
            case .samePlace: "own=1; session=abc-secret"
            case .otherHost: nil
            case .otherPort: "session=abc-secret"
            }
        }
    }

    @Test(
        "A redirect carries the jar's cookies by their own scope, and the caller's header by the origin rule",
        arguments: Landing.allCases)
    func redirectScoping(landing: Landing) async throws {
        let server = try MockServer()
        let other = try MockServer()
        defer { server.shutdown(); other.shutdown() }
        let target =
            switch landing {
            case .samePlace: server.url("/landing")
            case .otherHost: server.url("/landing", host: "localhost")
            case .otherPort: other.url("/landing")
            }
        server.route { request in
            switch request.path {
            case "/login": .text("in", headers: [Self.sessionCookie])
            case "/go": .redirect(to: target.absoluteString)
            default: .text("landed")
            }
        }
        other.route { _ in .text("landed") }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.post("/login").response()
        _ = try await api.get("/go").header("Cookie", "own=1").response()

        let landed = try #require((server.requests + other.requests).first { $0.path == "/landing" })
        #expect(landed.header("Cookie") == landing.expectedCookie)
        let go = try #require(server.requests.first { $0.path == "/go" })
        #expect(go.header("Cookie") == "own=1; session=abc-secret")
    }

    @Test("A cookie set by a redirect goes with the next hop, on either host")
    func redirectSetsCookie() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let elsewhere = server.url("/elsewhere", host: "localhost").absoluteString
        server.route { request in
            switch request.path {
            case "/start":
                MockResponse(status: 302, headers: [("Location", "/next"), ("Set-Cookie", "step=1")])
            case "/next":
                MockResponse(status: 302, headers: [("Location", elsewhere), ("Set-Cookie", "step=2")])
            case "/elsewhere":
                MockResponse(status: 302, headers: [("Location", "/final"), ("Set-Cookie", "there=1")])
            default: .text("done")
            }
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let response = try await api.get("/start").response()

        #expect(response.string == "done")
        #expect(server.requests.map(\.path) == ["/start", "/next", "/elsewhere", "/final"])
        #expect(server.requests.map { $0.header("Cookie") } == [nil, "step=1", nil, "there=1"])
        _ = try await api.get("/again").response()
        #expect(server.requests.last?.header("Cookie") == "step=2")
    }

    /// Loopback is not treated as secure: a `Secure` cookie needs https, which <doc:Cookies> states.
    @Test("A Secure cookie over plain http is not stored")
    func secureOverHTTP() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .text(
                "ok",
                headers: [
                    ("Set-Cookie", "secure=1; Secure"), ("Set-Cookie", "__Host-x=1; Secure; Path=/"),
                    ("Set-Cookie", "plain=1"),
                ])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.get("/a").response()
        _ = try await api.get("/b").response()

        #expect(api.cookieJar?.cookies.map(\.name) == ["plain"])
        #expect(server.requests.last?.header("Cookie") == "plain=1")
    }

    /// In memory (`MockTransport(serving:)`) rather than over sockets: libcurl parsing 10,000 header lines holds up
    /// every URLSession of the process for seconds, which would disturb the suites running in parallel. The same
    /// flood over a real socket runs in a process of its own below (`CookieFloodTests`).
    @Test("10,000 Set-Cookie fields from a hostile server leave the jar within its limits")
    func hostileServer() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let fields = (0..<10_000).map { (name: "Set-Cookie", value: "c\($0)=1") }
        server.route { $0.path == "/flood" ? MockResponse(status: 200, headers: fields) : .text("ok") }
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .never
        let api = SimpleNetworking(
            baseURL: server.baseURL, transport: MockTransport(serving: server), configuration: configuration)
        defer { api.close() }
        let jar = try #require(api.cookieJar)

        let flood = try await api.get("/flood").response()
        _ = try await api.get("/next").response()

        #expect(flood.headers.values(for: "Set-Cookie").count == 10_000)
        #expect(jar.cookies.count == jar.maximumCookiesPerDomain)
        #expect(jar.cookies.count <= jar.maximumCookies)
        let sent = try #require(server.requests.last?.header("Cookie"))
        #expect(sent.components(separatedBy: "; ").count == jar.maximumCookiesPerDomain)
        #expect(sent.hasSuffix("c9999=1"))
    }

    @Test("Events and cURL descriptions never show a jar cookie's value")
    func redaction() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { $0.path == "/login" ? .text("in", headers: [Self.sessionCookie]) : .text("me") }
        let events = EventLog()
        let api = makeLoopbackClient(server) { configuration in
            configuration.eventHandler = { event in events.append(String(describing: event)) }
        }
        defer { api.close() }

        _ = try await api.post("/login").response()
        let request = api.get("/me")
        _ = try await request.response()
        let curl = try api.get("/me").cURLDescription(on: api)

        #expect(server.requests.last?.header("Cookie") == "session=abc-secret")
        #expect(!events.all.isEmpty)
        #expect(!events.all.contains { $0.contains("abc-secret") })
        #expect(!curl.contains("abc-secret"))
        let listed = String(describing: api.cookieJar?.cookies ?? [])
        #expect(listed.contains("session=<redacted>") && !listed.contains("abc-secret"))
    }

    @Test("A client's jar keeps time by the configured clock, so expiry needs no waiting")
    func expiryByClientClock() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/login" ? .text("in", headers: [("Set-Cookie", "session=1; Max-Age=60")]) : .text("me")
        }
        let virtual = VirtualClock()
        let api = makeLoopbackClient(server) { $0.clock = virtual.clock }
        defer { api.close() }

        _ = try await api.post("/login").response()
        try await virtual.clock.sleep(59)
        _ = try await api.get("/me").response()
        try await virtual.clock.sleep(1)
        _ = try await api.get("/me").response()

        #expect(server.requests.map { $0.header("Cookie") } == [nil, "session=1", nil])
        #expect(api.cookieJar?.cookies.isEmpty == true)
    }

    @Test("Cookies can be turned off, or one jar shared by two clients")
    func disabledAndShared() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { $0.path == "/login" ? .text("in", headers: [Self.sessionCookie]) : .text("me") }
        let off = makeLoopbackClient(server) { $0.cookies = .disabled }
        let jar = CookieJar()
        let first = makeLoopbackClient(server) { $0.cookies = .shared(jar) }
        let second = makeLoopbackClient(server) { $0.cookies = .shared(jar) }
        defer { off.close(); first.close(); second.close() }

        _ = try await off.post("/login").response()
        _ = try await off.get("/me").response()
        _ = try await first.post("/login").response()
        _ = try await second.get("/me").response()

        #expect(off.cookieJar == nil)
        #expect(first.cookieJar === jar && second.cookieJar === jar)
        #expect(server.requests.map { $0.header("Cookie") } == [nil, nil, nil, "session=abc-secret"])
    }
}

#if os(Linux)
    // transport-probe reads /proc: Linux only.
    /// The hostile flood over a real socket, in a process of its own (see `BusyTransportTests` for why).
    @Suite("A cookie flood over loopback (in a process of its own)")
    struct CookieFloodTests {
        @Test("10,000 Set-Cookie fields over a socket leave 180 cookies and the process within 64 MiB")
        func flood() async throws {
            let result = try await Probe.run(["cookie-flood", "10000"])

            #expect(result["outcome"] == "status 200", "\(result)")
            let limit = try #require(result["jar-limit-per-domain"].flatMap { Int($0) })
            #expect(result["jar-cookies"] == String(limit), "\(result)")
            #expect(result["cookies-sent"] == String(limit), "\(result)")
            // Measured in the probe's own process, never in this one. ThreadSanitizer's shadow memory scales the
            // figure, as `timeScale` does the times.
            let peak = try #require(result["peak-rss-kb"].flatMap { Int($0) })
            #expect(Double(peak) < 64 * 1024 * timeScale, "peak RSS \(peak) kB")
        }
    }
#endif
