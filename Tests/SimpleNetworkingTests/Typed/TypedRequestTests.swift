import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("HTTP statuses")
struct HTTPStatusTests {
    @Test(
        "Names have their codes and each code is in exactly one class",
        arguments: [
            (HTTPStatus.continue, 100, "informational"), (.ok, 200, "success"), (.created, 201, "success"),
            (.noContent, 204, "success"), (.notModified, 304, "redirection"), (.permanentRedirect, 308, "redirection"),
            (.badRequest, 400, "client"), (.unauthorized, 401, "client"), (.forbidden, 403, "client"),
            (.notFound, 404, "client"), (.tooManyRequests, 429, "client"), (.internalServerError, 500, "server"),
            (.serviceUnavailable, 503, "server"), (99, 99, "none"), (600, 600, "none"),
        ] as [(HTTPStatus, Int, String)])
    func namesAndClasses(status: HTTPStatus, code: Int, kind: String) {
        #expect(status.code == code)
        #expect(status == HTTPStatus(code))
        #expect(status.rawValue == code)
        #expect(status.description == "\(code)")
        let classes = [
            ("informational", status.isInformational), ("success", status.isSuccess),
            ("redirection", status.isRedirection), ("client", status.isClientError), ("server", status.isServerError),
        ]
        #expect(classes.filter(\.1).map(\.0) == (kind == "none" ? [] : [kind]))
    }

    @Test("A status is Codable as its code, so a response model can hold one")
    func codableAsCode() throws {
        struct Outcome: Codable, Equatable {
            var status: HTTPStatus
        }
        let json = try JSONEncoder().encode(Outcome(status: .notFound))
        #expect(String(decoding: json, as: UTF8.self) == #"{"status":404}"#)
        #expect(try JSONDecoder().decode(Outcome.self, from: Data(#"{"status":599}"#.utf8)) == Outcome(status: 599))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Outcome.self, from: Data(#"{"status":"404"}"#.utf8))
        }
    }

    @Test("The response's status matches its code, and status handlers take a named status")
    func namedStatusHandlers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.status(429))
        server.enqueue(.json("{}", status: 201))
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let seen = EventLog()
        let request = api.get("/limited")
            .on(httpStatus: .tooManyRequests) { request, response in
                seen.append("429 \(response.status.isClientError)")
                request.retry()
                return false
            }
            .on(httpStatus: .serviceUnavailable) { _, _ in
                seen.append("503")
                return true
            }
        #expect(request.httpStatusHandlers[.tooManyRequests]?.count == 1)
        #expect(request.httpStatusHandlers[HTTPStatus.ok] == nil)
        let response = try await request.response()
        #expect(response.status == .created)
        #expect(response.statusCode == 201)
        #expect(seen.all == ["429 true"])
        #expect(server.requestCount == 2)
    }

    @Test("A range of named statuses takes one handler for every code in it")
    func namedStatusRange() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.status(502))
        server.enqueue(.status(504))
        server.enqueue(.status(200))
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let seen = EventLog()
        let request = api.get("/flaky")
            .on(httpStatus: .internalServerError ... .gatewayTimeout) { request, response in
                seen.append("\(response.statusCode)")
                request.retry()
                return false
            }
        #expect(request.httpStatusHandlers[.badGateway]?.count == 1)
        #expect(request.httpStatusHandlers[HTTPStatus(505)] == nil)
        #expect(try await request.response().status == .ok)
        #expect(seen.all == ["502", "504"])
    }
}

/// Endpoints used by the tests below.
private struct StoredProfile: Codable, Sendable, Equatable {
    var id: Int
    var name: String
}

private enum ProfileEndpoint: Endpoint {
    case profile(id: String)
    case update(id: String, StoredProfile)
    case remove(id: String)
    case search(String)

    typealias Response = StoredProfile

    var method: HTTPMethod {
        switch self {
        case .update: .put
        case .remove: .delete
        case .profile, .search: .get
        }
    }
    var path: String {
        switch self {
        case .profile, .update, .remove: "/profiles/{id}"
        case .search: "/profiles"
        }
    }
    var pathValues: [String: String] {
        switch self {
        case .profile(let id), .update(let id, _), .remove(let id): ["id": id]
        case .search: [:]
        }
    }
    var query: [String: String] {
        if case .search(let text) = self { return ["q": text, "limit": "5"] }
        return [:]
    }
    var headers: HTTPHeaders { ["X-Endpoint": "profiles"] }
    var body: StoredProfile? {
        if case .update(_, let profile) = self { return profile }
        return nil
    }
}

/// The same endpoint shape, with a body of its own type and nothing to decode.
private struct UpdateProfile: Endpoint {
    var profile: StoredProfile
    var method: HTTPMethod { .post }
    var path: String { "/profiles" }
    var body: StoredProfile { profile }
}

/// An endpoint on an origin of its own.
private struct Elsewhere: Endpoint {
    var baseURL: URL?
    var path: String { "/elsewhere/{name}" }
    var pathValues: [String: String] { ["name": "a/b"] }
}

/// An endpoint whose server answers with a redirect.
private struct MovedProfile: Endpoint {
    typealias Response = StoredProfile
    var id: String
    var path: String { "/moved/{id}" }
    var pathValues: [String: String] { ["id": id] }
}

/// A request type with a static method, that customises its body encoding and headers without restating the rest.
private struct UploadNote: Endpoint {
    static let method: HTTPMethod = .post
    typealias Response = StoredProfile

    var folder: String
    var text: String
    var path: String { "/notes/{folder}" }
    var pathValues: [String: String] { ["folder": folder] }

    func configure(_ request: SimpleRequest) -> SimpleRequest {
        request.body(text, contentType: "text/markdown").header("X-Client", request.client == nil ? "none" : "bound")
    }
}

/// A token call at the root of the origin, beside an API below a base path.
private struct TokenEndpoint: Endpoint {
    static let method: HTTPMethod = .post
    var baseURL: URL?
    var path: String { "/oauth/token" }
    var ignoresBasePath: Bool { true }
}

/// An endpoint with a decoder of its own.
private struct SnakeProfile: Endpoint {
    struct Response: Decodable, Sendable {
        var displayName: String
    }
    var path: String { "/snake" }
    var decoder: JSONDecoder? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

/// The API's own error body.
private struct APIError: Decodable, Sendable, Equatable {
    var error: String
}

/// An endpoint whose error bodies decode into ``APIError``.
private struct CreateProfile: Endpoint {
    static let method: HTTPMethod = .post
    typealias Response = StoredProfile
    typealias ErrorBody = APIError
    var profile: StoredProfile
    var path: String { "/validated" }
    var body: StoredProfile { profile }
}

/// An endpoint whose own decoding throws an error of the app's type.
private struct Strict: Endpoint {
    struct Rejected: Error, Equatable {
        var reason: String
    }
    typealias Response = StoredProfile
    var path: String { "/profiles/7" }
    func decode(_ response: SimpleResponse, decoder: JSONDecoder) throws -> StoredProfile {
        let profile = try response.decode(StoredProfile.self, decoder: decoder)
        guard profile.id > 100 else { throw Rejected(reason: "id \(profile.id) is too small") }
        return profile
    }
}

@Suite("Endpoints and typed requests")
struct TypedRequestTests {
    private func makeServer() throws -> MockServer {
        let server = try MockServer()
        server.route { request in
            switch (request.method, request.path) {
            case ("GET", "/profiles/7"), ("PUT", "/profiles/7"), ("GET", "/profiles"):
                return .json(#"{"id": 7, "name": "Kringle"}"#)
            case ("GET", "/profiles/empty"): return .status(200)
            case ("DELETE", _), ("POST", "/profiles"), (_, "/api/elsewhere/a%2Fb"): return .status(204)
            case ("POST", "/notes/to%20do"): return .json(#"{"id": 1, "name": "note"}"#, status: 201)
            default: return .status(404)
            }
        }
        return server
    }

    @Test("An endpoint sends its method, path, query, headers and body, and returns the decoded response")
    func endpointRoundTrip() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server) { $0.defaultHeaders = ["Authorization": "Bearer t"] }
        defer { api.close() }

        #expect(try await api.send(ProfileEndpoint.profile(id: "7")) == StoredProfile(id: 7, name: "Kringle"))
        _ = try await api.send(ProfileEndpoint.update(id: "7", StoredProfile(id: 7, name: "Crane")))
        _ = try await api.send(ProfileEndpoint.search("a&b=c"))

        let requests = server.requests
        #expect(requests.map(\.method) == ["GET", "PUT", "GET"])
        #expect(requests.map(\.target) == ["/profiles/7", "/profiles/7", "/profiles?limit=5&q=a%26b%3Dc"])
        #expect(requests.allSatisfy { $0.header("X-Endpoint") == "profiles" })
        #expect(requests.allSatisfy { $0.header("Authorization") == "Bearer t" })
        let sent = try JSONDecoder().decode(StoredProfile.self, from: requests[1].body)
        #expect(sent == StoredProfile(id: 7, name: "Crane"))
        #expect(requests[1].header("Content-Type") == "application/json")
        #expect(requests[0].body.isEmpty)
    }

    @Test("An endpoint that repeats a header field sends every field of that name, as default headers do")
    func repeatedEndpointHeaders() async throws {
        struct Tagged: Endpoint {
            typealias Response = NoContent
            var path: String { "/profiles/empty" }
            var headers: HTTPHeaders {
                HTTPHeaders([.init(name: "X-Test", value: "one"), .init(name: "X-Test", value: "two")])
            }
        }
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server) { $0.defaultHeaders = ["X-Test": "default"] }
        defer { api.close() }

        try await api.send(Tagged())

        // URLSession joins repeated fields into one with ", "; either way both values arrive, and not the default.
        let fields = server.requests.first?.httpHeaders.values(for: "X-Test") ?? []
        #expect(fields.joined(separator: ", ") == "one, two")
    }

    @Test("A NoContent response is not decoded; an empty body where a value is expected is decodingFailed")
    func emptyBodies() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        #expect(try await api.send(UpdateProfile(profile: StoredProfile(id: 1, name: "Ada"))) == NoContent())
        do {
            _ = try await api.send(ProfileEndpoint.profile(id: "empty"))
            Issue.record("an empty body decoded into a value")
        } catch .decodingFailed(let type, let reason, let response) {
            #expect(type.hasSuffix("StoredProfile"))
            #expect(reason.contains("empty"))
            #expect(response?.status == .ok)
        } catch {
            Issue.record("expected decodingFailed, got \(error)")
        }
        #expect(server.requests.map(\.method) == ["POST", "GET"])
        #expect(server.requests.first?.header("Content-Type") == "application/json")
    }

    @Test("A method given to request(for:method:) replaces the endpoint's; the value is still decoded")
    func methodOverride() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        _ = try await api.request(for: ProfileEndpoint.profile(id: "7"), method: .get).value()
        let outcome = await outcome {
            _ = try await api.request(for: ProfileEndpoint.profile(id: "7"), method: .delete).value()
            return SimpleResponse(statusCode: 0)
        }
        // 204 where a StoredProfile is expected.
        #expect(outcome.failureValue.map { "\($0)" }?.contains("StoredProfile") == true)
        #expect(server.requests.map(\.method) == ["GET", "DELETE"])
    }

    @Test("get(path) always builds a request, beside an endpoint sent with send")
    func getBuilds() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let request: SimpleRequest = api.get("/profiles/7")
        #expect(request.method == .get)
        let built = try await request.decode(StoredProfile.self)
        let sent = try await api.send(ProfileEndpoint.profile(id: "7"))
        #expect(built == sent)
        #expect(server.requests.map(\.target) == ["/profiles/7", "/profiles/7"])
    }

    @Test("Retries, status handlers and the request form run unchanged for endpoints")
    func samePipeline() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(MockResponse(status: 503, headers: [("Retry-After", "0")]))
        server.enqueue(.json(#"{"id": 7, "name": "Kringle"}"#))
        server.enqueue(.status(404))
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }

        #expect(try await api.send(ProfileEndpoint.profile(id: "7")).name == "Kringle")
        let seen = EventLog()
        let request = try api.request(for: ProfileEndpoint.profile(id: "8"), method: .head).request
            .on(httpStatus: .notFound) { _, response in
                seen.append("\(response.status)")
                return true
            }
        let failure = await failure(of: request)
        guard case .unacceptableStatus(let response) = failure else {
            Issue.record("expected unacceptableStatus, got \(String(describing: failure))")
            return
        }
        #expect(response.status == .notFound)
        #expect(seen.all == ["404"])
        #expect(server.requests.map(\.method) == ["GET", "GET", "HEAD"])
        #expect(server.requests.map(\.path) == ["/profiles/7", "/profiles/7", "/profiles/8"])
    }

    @Test("A bad path value is invalidURL and nothing is sent")
    func badPathValue() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        for id in ["", ".", "..", "../../admin"] {
            do {
                _ = try await api.send(ProfileEndpoint.profile(id: id))
                Issue.record("\(id) was sent")
            } catch .invalidURL {
            } catch {
                Issue.record("expected invalidURL for \(id), got \(error)")
            }
        }
        #expect(server.requestCount == 0)
    }

    /// The caller wrote a plain value and the library encoded it, so the error speaks of the value, not of encoding.
    @Test(
        "A path value with a dot segment is refused as leaving the base path",
        arguments: ["../W", "..", "a/./b", "x\\.."])
    func dotSegmentValue(value: String) async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let reason: String
        do {
            _ = try await api.get("/users/{id}", path: ["id": value]).response()
            Issue.record("\(value) was sent")
            return
        } catch .invalidURL(let why) {
            reason = why
        } catch {
            Issue.record("expected invalidURL, got \(error)")
            return
        }
        #expect(reason.contains("{id} would leave the base path"))
        #expect(!reason.contains("literally"))
        #expect(server.requestCount == 0)
    }

    @Test("An endpoint's own base URL gets default headers only at the client's origin", arguments: [false, true])
    func ownBaseURL(sameOrigin: Bool) async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server.url("/v1")) { $0.defaultHeaders = ["Authorization": "Bearer t"] }
        defer { api.close() }
        let endpointBase = server.url("/api", host: sameOrigin ? "127.0.0.1" : "localhost")
        try await api.send(Elsewhere(baseURL: endpointBase))
        #expect(server.requests.map(\.path) == ["/api/elsewhere/a%2Fb"])
        #expect(server.requests.first?.header("Authorization") == (sameOrigin ? "Bearer t" : nil))
    }

    @Test("A request type with a static method overrides its body encoding and headers and keeps the rest")
    func typedRequestCustomisation() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let note = try await api.send(UploadNote(folder: "to do", text: "# Feed Kringle"))
        #expect(note == StoredProfile(id: 1, name: "note"))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/notes/to%20do")
        #expect(String(decoding: request.body, as: UTF8.self) == "# Feed Kringle")
        #expect(request.header("Content-Type") == "text/markdown")
        #expect(request.header("X-Client") == "bound")
    }

    @Test("Redirects and re-authentication apply to endpoints")
    func redirectsAndReauthentication() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/auth": return .json(#"{"token": "fresh"}"#)
            case "/moved/7": return .redirect(to: "/profiles/7")
            case "/profiles/7" where request.header("Authorization") == "Bearer fresh":
                return .json(#"{"id": 7, "name": "Kringle"}"#)
            default: return .status(401)
            }
        }
        let api = MyAPI(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await api.send(MovedProfile(id: "7")) == StoredProfile(id: 7, name: "Kringle"))
        #expect(server.requests.map(\.path) == ["/moved/7", "/profiles/7", "/auth", "/moved/7", "/profiles/7"])
    }

    @Test("The handler style: request(for:) gives success handlers the decoded value, after the response's")
    func handlerStyle() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()
        let request = try api.request(for: ProfileEndpoint.profile(id: "7"))
            .on(success: { profile in log.append("profile \(profile.name)") })
            .on(error: { error in log.append("error \(error)") })
            .on(completion: { log.append("done") })
            .request
            .on(success: { response in log.append("response \(response.statusCode)") })
        await request.executeAndWait(on: api)
        #expect(log.all == ["response 200", "profile Kringle", "done"])
    }

    @Test("A path that ignores the base path goes to the root of the client's origin, or of the endpoint's own")
    func ignoresBasePath() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server.url("/v1")) { $0.defaultHeaders = ["Authorization": "Bearer t"] }
        defer { api.close() }
        try await api.send(TokenEndpoint())
        try await api.send(TokenEndpoint(baseURL: server.url("/elsewhere/v2", host: "localhost")))
        #expect(server.requests.map(\.path) == ["/oauth/token", "/oauth/token"])
        #expect(server.requests.map(\.method) == ["POST", "POST"])
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer t", nil])
    }

    @Test("An endpoint decodes with the client's decoder unless it gives its own")
    func decoders() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"display_name": "Ada"}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        #expect(try await api.send(SnakeProfile()).displayName == "Ada")

        struct Plain: Endpoint {
            typealias Response = SnakeProfile.Response
            var path: String { "/snake" }
        }
        await #expect(throws: SimpleNetworkingError.self) { try await api.send(Plain()) }
        let snakeDecoder = JSONDecoder()
        snakeDecoder.keyDecodingStrategy = .convertFromSnakeCase
        let snake = makeLoopbackClient(server) { $0.decoder = snakeDecoder }
        defer { snake.close() }
        #expect(try await snake.send(Plain()).displayName == "Ada")
    }

    @Test("An endpoint's error body arrives typed, with its response; one that does not decode is the status error")
    func typedErrorBody() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.json(#"{"error": "name is taken"}"#, status: 422))
        server.enqueue(.text("<html>Bad gateway</html>", status: 502))
        server.enqueue(.json(#"{"id": 3, "name": "Ada"}"#, status: 201))
        let api = makeLoopbackClient(server) { $0.retryPolicy = .never }
        defer { api.close() }
        let new = CreateProfile(profile: StoredProfile(id: 3, name: "Ada"))

        do {
            _ = try await api.send(new)
            Issue.record("a 422 was a success")
        } catch .errorBody(let body as APIError, let response) {
            #expect(body == APIError(error: "name is taken"))
            #expect(response.statusCode == 422)
        } catch {
            Issue.record("expected errorBody, got \(error)")
        }
        let plain = await outcome {
            _ = try await api.send(new)
            return SimpleResponse(statusCode: 0)
        }
        guard case .failure(.unacceptableStatus(let response)) = plain else {
            Issue.record("expected unacceptableStatus, got \(plain)")
            return
        }
        #expect(response.statusCode == 502)
        #expect(try await api.send(new) == StoredProfile(id: 3, name: "Ada"))
    }

    @Test("An endpoint's own decoding may throw the app's error, kept as the underlying error")
    func decodeThrowsOwnError() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        do {
            _ = try await api.send(Strict())
            Issue.record("the endpoint's check did not throw")
        } catch .transformFailed(let underlying, let response) {
            #expect(underlying as? Strict.Rejected == Strict.Rejected(reason: "id 7 is too small"))
            #expect(response.statusCode == 200)
        } catch {
            Issue.record("expected transformFailed, got \(error)")
        }
    }
}
