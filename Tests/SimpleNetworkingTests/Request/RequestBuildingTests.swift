import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Building requests")
struct RequestBuildingTests {
    private func sentURL(base: URL = exampleBaseURL, _ build: (SimpleNetworking) -> SimpleRequest) async -> String? {
        let transport = MockTransport()
        transport.route { _ in .status(200) }
        let api = SimpleNetworking(baseURL: base, transport: transport)
        _ = try? await build(api).response()
        return transport.requests.first?.url.absoluteString
    }

    @Test(
        "Paths are appended to the base URL's path",
        arguments: [
            ("https://api.example.com", "/users", "https://api.example.com/users"),
            ("https://api.example.com/", "users", "https://api.example.com/users"),
            ("https://api.example.com/v1", "/users/42", "https://api.example.com/v1/users/42"),
            ("https://api.example.com/v1/", "/users", "https://api.example.com/v1/users"),
            ("http://127.0.0.1:8080/v1", "", "http://127.0.0.1:8080/v1/"),
            ("https://api.example.com", "/a b/ü", "https://api.example.com/a%20b/%C3%BC"),
            ("https://api.example.com", "/already%20encoded", "https://api.example.com/already%20encoded"),
            ("https://api.example.com", "/search?q=a+b&x", "https://api.example.com/search?q=a+b&x"),
            ("https://api.example.com", "/hash#fragment", "https://api.example.com/hash%23fragment"),
        ])
    func paths(base: String, path: String, expected: String) async throws {
        let url = await sentURL(base: try #require(URL(string: base))) { $0.get(path) }
        #expect(url == expected)
    }

    @Test(
        "Query values are percent-encoded so every character arrives literally",
        arguments: [
            ("a b", "a%20b"), ("a+b", "a%2Bb"), ("a&b=c", "a%26b%3Dc"), ("ü", "%C3%BC"), ("/?#", "%2F%3F%23"),
            ("100%", "100%25"), ("plain-._~", "plain-._~"),
        ])
    func queryEncoding(value: String, encoded: String) async {
        let url = await sentURL { $0.get("/s").query("q", value) }
        #expect(url == "https://api.example.com/v1/s?q=\(encoded)")
    }

    @Test("Query items join an inline query; a nil value sends the bare name")
    func queryJoin() async {
        let url = await sentURL { $0.get("/s?a=1").query("b", "2").query("flag", nil) }
        #expect(url == "https://api.example.com/v1/s?a=1&b=2&flag")
    }

    @Test("Bodies: raw data, text and JSON get their content type unless one is set")
    func bodies() async throws {
        struct Pet: Codable, Sendable, Equatable { var name: String }
        let transport = MockTransport()
        transport.route { _ in .status(200) }
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport)
        _ = try await api.post("/a").body(json: Pet(name: "Kringle")).response()
        _ = try await api.post("/b").body("hello").response()
        _ = try await api.put("/c").header("Content-Type", "image/png").body(Data([1, 2, 3])).response()
        let requests = transport.requests
        #expect(
            requests.map { $0.headers["Content-Type"] } == [
                "application/json", "text/plain; charset=utf-8", "image/png",
            ])
        #expect(try JSONDecoder().decode(Pet.self, from: requests[0].body ?? Data()) == Pet(name: "Kringle"))
        #expect(requests[1].body == Data("hello".utf8))
        #expect(requests.map(\.method.rawValue) == ["POST", "POST", "PUT"])
    }

    @Test(
        "Every verb sends its method, in all three forms",
        arguments: [
            HTTPMethod.get, .post, .put, .patch, .delete, .head,
        ])
    func verbs(method: HTTPMethod) async {
        let (api, transport) = makeMockClient()
        transport.route { _ in .status(200) }
        await SimpleNetworking.request(method, "/static").executeAndWait(on: api)
        await api.request(method, "/bound").executeAndWait(on: api)
        let done = Counter()
        api.request(method, "/configured") { $0.on(completion: { done.increment() }) }
        #expect(await eventually { done.value == 1 })
        #expect(transport.requests.map(\.method.rawValue) == Array(repeating: method.rawValue, count: 3))
    }
}

@Suite("Bad input gets a typed error")
struct BadInputTests {
    @Test(
        "A base URL that cannot form an http URL fails with invalidURL and sends nothing",
        arguments: [
            "ftp://files.example.com", "file:///etc/passwd", "mailto:someone@example.com", "https://example.com?q=1",
        ])
    func badBaseURL(base: String) async throws {
        let transport = MockTransport()
        let api = SimpleNetworking(baseURL: try #require(URL(string: base)), transport: transport)
        await #expect {
            try await api.get("/a").response()
        } throws: { error in
            if case .invalidURL = error as? SimpleNetworkingError { return true }
            return false
        }
        #expect(transport.requestCount == 0)
    }

    @Test("A non-JSON body read as JSON, or an empty body decoded, is a decodingFailed error")
    func badBodies() async throws {
        struct Model: Decodable { var id: Int }
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(200, body: Data("<html>".utf8)))
        transport.enqueue(.status(200))
        transport.enqueue(.json(#"{"id": "not a number"}"#))
        let html = try await api.get("/html").response()
        #expect(html.json == nil)
        #expect(throws: SimpleNetworkingError.self) { try html.jsonValue() }
        await #expect(throws: SimpleNetworkingError.self) { try await api.get("/empty").decode(Model.self) }
        do {
            _ = try await api.get("/wrong").decode(Model.self)
            Issue.record("decoding should have failed")
        } catch {
            guard case .decodingFailed(let type, let reason, let response) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(type == "Model")
            #expect(reason.contains("id"))
            #expect(response?.statusCode == 200)
        }
    }

    @Test("A response reads its body as text, JSON and Decodable")
    func responseAccessors() throws {
        let response = SimpleResponse(
            statusCode: 200, headers: ["content-type": "application/json; charset=utf-8"],
            body: Data(#"{"token": "abc", "n": 2}"#.utf8))
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.json?["token"] as? String == "abc")
        #expect(response.string == #"{"token": "abc", "n": 2}"#)
        struct Token: Decodable { var token: String }
        #expect(try response.decode(Token.self).token == "abc")
    }

    @Test("Error descriptions never contain header values or query strings")
    func descriptionsAreSafe() {
        let response = SimpleResponse(
            statusCode: 401, headers: ["WWW-Authenticate": "Bearer secret-token"],
            body: Data("secret-body".utf8), url: URL(string: "https://api.example.com/me?api_key=secret-key"))
        let errors: [SimpleNetworkingError] = [
            .unacceptableStatus(response), .stoppedByHandler(response),
            .retryLimitExceeded(attempts: 3, response: response),
            .decodingFailed(type: "Me", reason: "missing key 'id' at the top level", response: response),
        ]
        for error in errors {
            #expect(!error.description.contains("secret"))
            #expect(!"\(response)".contains("secret"))
        }
        #expect(SimpleNetworkingError.unacceptableStatus(response).description.contains("401"))
    }
}
