import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The headers sent on the first request of each redirect test: secrets, and one harmless header that must survive.
private let secretHeaders: [(name: String, value: String)] = [
    ("Authorization", "Bearer secret-token"), ("Proxy-Authorization", "Basic c2VjcmV0"), ("Cookie", "session=secret"),
    ("X-Api-Key", "secret-key"), ("X-Tenant-Secret", "secret-tenant"),
]

@Suite("Redirects over loopback")
struct RedirectTests {
    /// One hop of a redirect chain: which server answers it, under which host name.
    enum Stop: String, Sendable, CustomStringConvertible {
        case a = "127.0.0.1 (A)"
        case aByName = "localhost (A's port)"
        case b = "127.0.0.1 (B's port)"
        var description: String { rawValue }
    }

    /// Facts from curl's and Go's redirect tests and RFC 9110: credentials survive a same-origin redirect, and a
    /// change of host or port removes them for the rest of the chain, even when it comes back (Go CVE-2024-45336).
    @Test(
        "Sensitive headers never reach another origin, and never come back",
        arguments: [
            ([Stop.a, .a], [true, true]),
            ([Stop.a, .aByName], [true, false]),
            ([Stop.a, .b], [true, false]),
            ([Stop.a, .b, .a], [true, false, false]),
            ([Stop.a, .a, .aByName, .a], [true, true, false, false]),
        ])
    func headerMatrix(stops: [Stop], expectSecrets: [Bool]) async throws {
        let serverA = try MockServer()
        let serverB = try MockServer()
        defer { serverA.shutdown(); serverB.shutdown() }
        func url(_ stop: Stop, _ index: Int) -> URL {
            switch stop {
            case .a: serverA.url("/hop\(index)")
            case .aByName: serverA.url("/hop\(index)", host: "localhost")
            case .b: serverB.url("/hop\(index)")
            }
        }
        var replies: [String: MockResponse] = [:]
        for index in stops.indices {
            replies["/hop\(index)"] =
                index + 1 < stops.count
                ? .redirect(to: url(stops[index + 1], index + 1).absoluteString) : .text("done")
        }
        let table = replies
        serverA.route { table[$0.path] ?? .status(404) }
        serverB.route { table[$0.path] ?? .status(404) }
        let api = makeLoopbackClient(serverA) {
            $0.defaultHeaders = ["X-Api-Key": "secret-key"]
            $0.sensitiveHeaders.insert("x-tenant-secret")
        }
        defer { api.close() }
        let request = api.get("/hop0").header("X-Trace", "kept")
        for header in secretHeaders where header.name != "X-Api-Key" { request.header(header.name, header.value) }

        let response = try await request.response()

        #expect(response.string == "done")
        let received = (serverA.requests + serverB.requests).sorted { $0.path < $1.path }
        #expect(received.map(\.path) == stops.indices.map { "/hop\($0)" })
        for (request, expected) in zip(received, expectSecrets) {
            let arrived = secretHeaders.filter { request.header($0.name) != nil }.map(\.name)
            #expect(arrived == (expected ? secretHeaders.map(\.name) : []), "at \(request.path)")
            #expect(request.header("X-Trace") == "kept", "at \(request.path)")
        }
    }

    @Test("Ten redirects are followed by default and the eleventh fails", arguments: [(10, true), (11, false)])
    func hopLimit(redirects: Int, succeeds: Bool) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            let hop = Int(request.path.dropFirst("/r/".count)) ?? 0
            return hop < redirects ? .redirect(to: "/r/\(hop + 1)") : .text("arrived")
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.get("/r/0"))

        if succeeds {
            #expect(error == nil)
            #expect(server.requestCount == redirects + 1)
        } else {
            guard case .tooManyRedirects(limit: 10) = error else {
                Issue.record("expected tooManyRedirects(limit: 10), got \(String(describing: error))")
                return
            }
            #expect(server.requestCount == 11)
        }
    }

    @Test("A per-request limit replaces the client's")
    func perRequestLimit() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { $0.path == "/c" ? .text("ok") : .redirect(to: $0.path == "/a" ? "/b" : "/c") }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let tooFew = await failure(of: api.get("/a").redirects(.follow(limit: 1)))
        let enough = await failure(of: api.get("/a").redirects(.follow(limit: 2)))

        guard case .tooManyRedirects(limit: 1) = tooFew else {
            Issue.record("expected tooManyRedirects(limit: 1), got \(String(describing: tooFew))")
            return
        }
        #expect(enough == nil)
    }

    @Test(
        "A redirect loop is detected before the limit",
        arguments: [
            ["/a": "/a"], ["/a": "/b", "/b": "/a"], ["/a": "/b", "/b": "/c", "/c": "/b"],
        ])
    func loops(graph: [String: String]) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { graph[$0.path].map { MockResponse.redirect(to: $0) } ?? .status(404) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.get("/a"))

        guard case .redirectRefused(let reason) = error else {
            Issue.record("expected redirectRefused, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("loop"))
        #expect(server.requestCount == Set(graph.keys).count)
    }

    /// RFC 9110 section 15.4 as Fetch, curl and Go apply it: 301 and 302 turn only POST into GET, 303 turns
    /// everything but HEAD into GET, 307 and 308 keep method and body (re-sent by the library: Linux drops it).
    @Test(
        "Redirects change the method and body as RFC 9110 says",
        arguments: [
            (301, HTTPMethod.post, HTTPMethod.get, false), (302, .post, .get, false), (303, .post, .get, false),
            (303, .put, .get, false), (303, .delete, .get, false), (301, .put, .put, true), (302, .patch, .patch, true),
            (307, .post, .post, true), (308, .post, .post, true), (307, .put, .put, true),
            (308, .delete, .delete, true),
        ])
    func methodRules(status: Int, method: HTTPMethod, expected: HTTPMethod, keepsBody: Bool) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { $0.path == "/from" ? .redirect(to: "/to", status: status) : .text("ok") }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let body = Data((0...255).map { UInt8($0) } + Array("\r\n\0tail".utf8))

        _ = try await api.request(method, "/from").body(body, contentType: .octetStream).response()

        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[1].method == expected.rawValue)
        #expect(requests[1].body == (keepsBody ? body : Data()))
        #expect((requests[1].header("Content-Type") != nil) == keepsBody)
        #expect(requests[0].body == body)
    }

    @Test("HEAD stays HEAD through a 303")
    func headThrough303() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { $0.path == "/from" ? .redirect(to: "/to", status: 303) : .status(200) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        _ = try await api.head("/from").response()

        #expect(server.requests.map(\.method) == ["HEAD", "HEAD"])
    }

    @Test("doNotFollow hands the 3xx itself to the handlers")
    func doNotFollow() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .redirect(to: "/elsewhere", status: 302) }
        let api = makeLoopbackClient(server) { $0.redirectPolicy = .doNotFollow }
        defer { api.close() }

        let error = await failure(of: api.get("/start"))

        #expect(error?.statusCode == 302)
        #expect(error?.response?.headers["Location"] == "/elsewhere")
        #expect(server.requestCount == 1)
    }

    @Test("sameOrigin follows on the origin and refuses to leave it")
    func sameOrigin() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let foreign = server.url("/x", host: "localhost").absoluteString
        server.route { request in
            switch request.path {
            case "/inside": .redirect(to: "/ok")
            case "/outside": .redirect(to: foreign)
            default: .text("ok")
            }
        }
        let api = makeLoopbackClient(server) { $0.redirectPolicy = .sameOrigin }
        defer { api.close() }

        let inside = await failure(of: api.get("/inside"))
        let outside = await failure(of: api.get("/outside"))

        #expect(inside == nil)
        guard case .redirectRefused = outside else {
            Issue.record("expected redirectRefused, got \(String(describing: outside))")
            return
        }
        #expect(server.requests.map(\.path) == ["/inside", "/ok", "/outside"])
    }

    @Test("A custom policy sees each hop and can refuse it")
    func customPolicy() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let foreign = server.url("/foreign", host: "localhost").absoluteString
        server.route { request in
            switch request.path {
            case "/1": .redirect(to: "/2", status: 301)
            case "/2": .redirect(to: foreign, status: 307)
            default: .text("ok")
            }
        }
        let seen = EventLog()
        let policy = RedirectPolicy.custom { hop in
            seen.append("\(hop.number) \(hop.statusCode) \(hop.from.path)->\(hop.to.path) \(hop.leavesOriginalOrigin)")
            return !hop.leavesOriginalOrigin
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.get("/1").redirects(policy))

        guard case .redirectRefused = error else {
            Issue.record("expected redirectRefused, got \(String(describing: error))")
            return
        }
        #expect(seen.all == ["1 301 /1->/2 false", "2 307 /2->/foreign true"])
        #expect(server.requestCount == 2)
    }

    @Test(
        "A 3xx without a usable Location",
        arguments: [
            (nil, true), ("", true), ("ftp://127.0.0.1/file", false), ("javascript:alert(1)", false),
        ] as [(String?, Bool)])
    func unusableLocation(location: String?, delivered: Bool) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(status: 302, headers: location.map { [("Location", $0)] } ?? []) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.get("/start"))

        if delivered {
            #expect(error?.statusCode == 302, "\(String(describing: error))")
        } else if case .redirectRefused = error {
        } else {
            Issue.record("expected redirectRefused, got \(String(describing: error))")
        }
        #expect(server.requestCount == 1)
    }
}

@Suite("Redirect rules without sockets")
struct RedirectRuleTests {
    @Test("https to http is refused unless the policy allows it, and then drops credentials")
    func downgrade() async throws {
        let transport = MockTransport()
        transport.route { request in
            request.url.scheme == "https"
                ? .status(302, headers: ["Location": "http://api.example.com/plain"])
                : .status(200)
        }
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport)

        let refused = await failure(of: api.get("/secure").header("Authorization", "Bearer secret"))
        let allowed = await failure(
            of: api.get("/secure").header("Authorization", "Bearer secret")
                .redirects(.follow().allowingHTTPSDowngrade()))

        guard case .redirectRefused(let reason) = refused else {
            Issue.record("expected redirectRefused, got \(String(describing: refused))")
            return
        }
        #expect(reason.contains("https to http"))
        #expect(allowed == nil)
        let urls = transport.requests.map { $0.url.absoluteString }
        #expect(
            urls == [
                "https://api.example.com/v1/secure", "https://api.example.com/v1/secure",
                "http://api.example.com/plain",
            ])
        #expect(transport.requests.last?.headers["Authorization"] == nil)
    }

    @Test(
        "Relative locations resolve against the URL that answered",
        arguments: [
            ("/root", "https://api.example.com/root"), ("sibling", "https://api.example.com/v1/dir/sibling"),
            ("../up", "https://api.example.com/v1/up"), ("?q=1", "https://api.example.com/v1/dir/page?q=1"),
            ("//api.example.com/x", "https://api.example.com/x"), ("next#frag", "https://api.example.com/v1/dir/next"),
        ])
    func relativeLocations(location: String, expected: String) async throws {
        let transport = MockTransport()
        transport.enqueue(.status(302, headers: ["Location": location]))
        transport.route { _ in .status(200) }
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport)

        _ = try await api.get("/dir/page").response()

        #expect(transport.requests.last?.url.absoluteString == expected)
    }

    @Test("The body-size limit also holds for transports that return whole bodies")
    func sizeLimitOnMockTransport() async throws {
        let transport = MockTransport()
        transport.route { _ in .status(200, body: Data(count: 101)) }
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport)

        let error = await failure(of: api.get("/big").maximumResponseBodySize(100))

        guard case .responseTooLarge(limit: 100) = error else {
            Issue.record("expected responseTooLarge(limit: 100), got \(String(describing: error))")
            return
        }
    }
}
