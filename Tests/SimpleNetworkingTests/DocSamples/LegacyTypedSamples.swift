import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// Typed-request samples that were in README.md before its typed-request sections moved to the TypedRequests article,
// and regions for that article's blocks as they are today. Temporary: the typed-request samples of
// `TypedRequestSamples.swift` replace this file.
// MARK: - Typed requests

func namedStatuses(api: SimpleNetworking) async throws -> HTTPStatus {
    let response = try await api.get("/users/1")
        .on(httpStatus: .tooManyRequests) { request, _ in
            request.retry()
            return false
        }
        .response()
    if response.status == .noContent || !response.status.isSuccess {
        print("nothing to show: \(response.statusCode)")
    }
    return response.status
}

func pathTemplate(api: SimpleNetworking, userID: String) async throws -> User {
    let user = try await api.get("/users/{id}", path: ["id": userID]).decode(User.self)
    return user
}

struct GetUserDetailsRequest: TypedRequest {
    var userID: Int
    var pathValues: [String: String] { ["userID": "\(userID)"] }

    static let httpMethod: HTTPMethod = .get
    static let pathTemplate: PathTemplate = "/users/{userID}"

    struct Response: Decodable, Sendable {
        var name: String
        var age: Int
    }
}

struct CreateUserRequest: TypedRequest {
    static let httpMethod: HTTPMethod = .post
    static let pathTemplate: PathTemplate = "/users"

    struct Body: Encodable, Sendable {
        var name: String
        var age: Int
    }
    var body: Body

    func configure(_ request: SimpleRequest) -> SimpleRequest {
        request.header("X-Request-Source", "crane")
    }
}

func crane(session: SimpleNetworking) async -> Int? {
    do {
        let response = try await session.send(GetUserDetailsRequest(userID: 42))
        print(response.name)
        print(response.age)
        try await session.send(CreateUserRequest(body: .init(name: "Ada", age: 36)))
        return response.age
    } catch {
        print(error)  // handle the error
        return nil
    }
}

struct GIPHY: APISpecification {
    var apiKey: String
    var host: URL
    var baseURL: URL { host.appendingPathComponent("v1") }

    var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    func prepare(_ request: SimpleRequest) {
        request.accept(.json).header("Content-Type", MediaType.json.rawValue)
    }

    static let search = APIEndpoint<GIPHY, Search, SearchResults>(.get, "gifs/search") { request, input, api in
        request.query(from: [
            "api_key": api.apiKey, "q": input.q, "limit": input.limit?.description,
            "offset": input.offset?.description, "lang": input.lang,
        ])
    }

    struct Search: Sendable {
        var q: String
        var limit: Int32?
        var offset: Int?
        var lang = "en"
    }

    struct SearchResults: Decodable, Sendable {
        struct Pagination: Decodable, Sendable {
            let offset: Int32
            let totalCount: Int32
            let count: Int32
        }

        struct GIFObject: Decodable, Sendable {
            let id: String
            let title: String
            let bitlyUrl: URL?
        }

        let data: [GIFObject]
        let pagination: Pagination
    }
}

func searchGIFs(host: URL) async throws -> GIPHY.SearchResults {
    let giphy = GIPHY(apiKey: "my-key", host: host)
    let api = SimpleNetworking(baseURL: host)
    let results = try await api.call(GIPHY.search, of: giphy, with: .init(q: "cats", limit: 2))
    print(results.pagination.totalCount, results.data.map(\.title))
    api.close()
    return results
}

@Suite("Typed-request samples run")
struct LegacyTypedSampleTests {
    @Test("Named statuses and a path template")
    func statusAndTemplate() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(MockResponse(status: 429))
        server.enqueue(.status(204))
        server.enqueue(.json(#"{"id": 7, "name": "Ada"}"#))
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await namedStatuses(api: api) == .noContent)
        #expect(try await pathTemplate(api: api, userID: "7/8").name == "Ada")
        #expect(server.requests.map(\.path) == ["/users/1", "/users/1", "/users/7%2F8"])
    }

    @Test("Crane's request types")
    func craneRuns() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch (request.method, request.path) {
            case ("GET", "/users/42"): return .json(#"{"name": "Ada", "age": 36}"#)
            case ("POST", "/users"): return .status(201)
            default: return .status(404)
            }
        }
        let session = SimpleNetworking(baseURL: server.baseURL)
        defer { session.close() }
        #expect(await crane(session: session) == 36)
        #expect(server.requests.map(\.method) == ["GET", "POST"])
        let created = try #require(server.requests.last)
        #expect(created.header("X-Request-Source") == "crane")
        #expect(String(decoding: created.body, as: UTF8.self).contains(#""name":"Ada""#))
    }

    @Test("The GIPHY specification sends its key, leaves nil out, sets shared headers and decodes snake_case")
    func giphySpecificationRuns() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .json(
                #"{"data": [{"id": "a1", "title": "Cat", "bitly_url": "https://gph.is/x"}], "#
                    + #""pagination": {"offset": 0, "total_count": 120, "count": 1}}"#)
        }
        let results = try await searchGIFs(host: server.baseURL)
        #expect(results.pagination.totalCount == 120)
        #expect(results.data.first?.bitlyUrl?.host == "gph.is")
        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/gifs/search")
        #expect(request.query == "api_key=my-key&lang=en&limit=2&q=cats")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("Content-Type") == "application/json")
    }
}

// The Swift blocks of TypedRequests.md as it is today; the typed-request samples replace this file.

func legacyNamedStatus(api: SimpleNetworking) async throws -> Bool {
    // DOC-SAMPLE: TypedRequests/named-status
    let response = try await api.get("/users/1")
        .on(httpStatus: .tooManyRequests) { request, _ in
            request.retry()
            return false
        }
        .response()
    print(response.status.isSuccess)
    // DOC-SAMPLE-END
    return response.status.isSuccess
}

func legacyPathTemplate(api: SimpleNetworking) async throws -> User {
    // DOC-SAMPLE: TypedRequests/path-template
    let user = try await api.get("/users/{id}", path: ["id": "42"]).decode(User.self)
    // DOC-SAMPLE-END
    return user
}

enum LegacyTypedArticle {
    static func endpoint(api: SimpleNetworking) async throws -> User {
        // DOC-SAMPLE: TypedRequests/user-endpoint
        enum UserEndpoint: Endpoint {
            case user(id: Int)

            typealias Response = User
            var path: String { "/users/{id}" }
            var pathValues: [String: String] {
                switch self {
                case .user(let id): ["id": "\(id)"]
                }
            }
        }

        let user = try await api.send(UserEndpoint.user(id: 1))
        // DOC-SAMPLE-END
        return user
    }
}

@Suite("TypedRequests article samples run")
struct LegacyTypedArticleSampleTests {
    @Test("The named status, the path template and the endpoint reach the paths they name")
    func run() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 42, "name": "Ada"}"#) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await legacyNamedStatus(api: api))
        #expect(try await legacyPathTemplate(api: api).id == 42)
        #expect(try await LegacyTypedArticle.endpoint(api: api).name == "Ada")
        #expect(server.requests.map(\.path) == ["/users/1", "/users/42", "/users/1"])
    }
}
