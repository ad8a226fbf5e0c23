import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// Every Swift block of the DocC articles TypedRequests, ComingFromCrane and ComingFromNetworkKit is a region of this
// file between `DOC-SAMPLE: Article/name` and `DOC-SAMPLE-END`, shown verbatim (dedented) in the article; the tests
// below run them against loopback.

// MARK: - TypedRequests

// DOC-SAMPLE: TypedRequests/models
struct Repo: Codable, Sendable {
    var id: Int
    var name: String
}

struct GitHubIssue: Codable, Sendable {
    var number: Int
    var title: String
}

struct NewIssue: Encodable, Sendable {
    var title: String
}

/// The API's error body: `{"error": "..."}`.
struct APIProblem: Decodable, Sendable {
    var error: String
}
// DOC-SAMPLE-END

func docNamedStatus(api: SimpleNetworking) async throws -> Bool {
    // DOC-SAMPLE: TypedRequests/status
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

func docPathTemplate(api: SimpleNetworking) async throws -> User {
    // DOC-SAMPLE: TypedRequests/path-template
    let user = try await api.get("/users/{id}", path: ["id": "42"]).decode(User.self)
    // DOC-SAMPLE-END
    return user
}

// DOC-SAMPLE: TypedRequests/enum-endpoint
enum RepoEndpoint: Endpoint {
    case repo(owner: String, name: String)
    case rename(owner: String, name: String, to: String)

    typealias Response = Repo

    var method: HTTPMethod {
        switch self {
        case .repo: .get
        case .rename: .patch
        }
    }
    var path: String { "/repos/{owner}/{name}" }
    var pathValues: [String: String] {
        switch self {
        case .repo(let owner, let name), .rename(let owner, let name, _): ["owner": owner, "name": name]
        }
    }
    var body: [String: String]? {
        guard case .rename(_, _, let newName) = self else { return nil }
        return ["name": newName]
    }
}
// DOC-SAMPLE-END

func docEnumSend(api: SimpleNetworking) async throws -> Repo {
    // DOC-SAMPLE: TypedRequests/enum-send
    let repo = try await api.send(RepoEndpoint.repo(owner: "apple", name: "swift"))
    let renamed = try await api.send(RepoEndpoint.rename(owner: "apple", name: "swift", to: "swift-lang"))
    // DOC-SAMPLE-END
    _ = repo
    return renamed
}

// DOC-SAMPLE: TypedRequests/struct-request
struct CreateIssue: Endpoint {
    static let method: HTTPMethod = .post
    typealias Response = GitHubIssue
    typealias ErrorBody = APIProblem

    var owner: String
    var repo: String
    var body: NewIssue

    var path: String { "/repos/{owner}/{repo}/issues" }
    var pathValues: [String: String] { ["owner": owner, "repo": repo] }
}
// DOC-SAMPLE-END

// DOC-SAMPLE: TypedRequests/specification
struct GitHubAPI: Sendable {
    var baseURL: URL
    var token: String

    func repo(owner: String, name: String) -> APICall<Repo> {
        call(APICall(.get, "/repos/{owner}/{name}", pathValues: ["owner": owner, "name": name]))
    }

    func issues(owner: String, repo: String, state: String? = nil) -> APICall<[GitHubIssue]> {
        call(
            APICall(
                .get, "/repos/{owner}/{repo}/issues", pathValues: ["owner": owner, "repo": repo],
                query: ["state": state]))
    }

    func createIssue(owner: String, repo: String, _ issue: NewIssue) -> APICall<GitHubIssue> {
        call(APICall(.post, "/repos/{owner}/{repo}/issues", pathValues: ["owner": owner, "repo": repo], body: issue))
    }

    /// What every call shares: the base URL, the token and the error body.
    private func call<Response>(_ call: APICall<Response>) -> APICall<Response> {
        var call = call
        call.baseURL = baseURL
        call.headers["Authorization"] = "Bearer \(token)"
        return call.decodingErrors(APIProblem.self)
    }
}
// DOC-SAMPLE-END

func docSpecificationSend(api: SimpleNetworking, baseURL: URL) async throws -> [GitHubIssue] {
    // DOC-SAMPLE: TypedRequests/specification-send
    let github = GitHubAPI(baseURL: baseURL, token: "my-token")
    let open = try await api.send(github.issues(owner: "apple", repo: "swift", state: "open"))
    let created = try await api.send(github.createIssue(owner: "apple", repo: "swift", NewIssue(title: "Hi")))
    // DOC-SAMPLE-END
    return open + [created]
}

// `print` stands in for Swift's own, so that the test sees the lines.
func docHandlerStyle(api: SimpleNetworking, print: @escaping @Sendable (String) -> Void) throws {
    // DOC-SAMPLE: TypedRequests/handler-style
    try api.request(for: RepoEndpoint.repo(owner: "apple", name: "swift"))
        .on(success: { repo in print("repo \(repo.name)") })
        .on(error: { error in print("error \(error)") })
        .on(completion: { print("done") })
        .execute(on: api)
    // DOC-SAMPLE-END
}

func docRawResponse(api: SimpleNetworking) async throws -> (Int, String) {
    // DOC-SAMPLE: TypedRequests/raw-response
    struct RepoName: Decodable {
        var name: String
    }

    let request = try api.request(for: RepoEndpoint.repo(owner: "apple", name: "swift"))
    let response = try await request.response()  // its body not decoded as a Repo
    let name = try await request.decode(RepoName.self).name
    // DOC-SAMPLE-END
    return (response.statusCode, name)
}

func docTokenCall(api: SimpleNetworking) async throws -> String {
    // DOC-SAMPLE: TypedRequests/outside-base-path
    struct AccessToken: Decodable, Sendable {
        var token: String
    }

    let token = try await api.send(APICall(.post, "/oauth/token", ignoresBasePath: true, returning: AccessToken.self))
    // DOC-SAMPLE-END
    return token.token
}

func docTransform(api: SimpleNetworking) async throws -> Int {
    // DOC-SAMPLE: TypedRequests/transform
    struct EmptyPage: Error {}

    let count = try await api.get("/repos/apple/swift/issues")
        .transform { response in
            let issues = try response.decode([GitHubIssue].self)  // with the client's decoder
            guard !issues.isEmpty else { throw EmptyPage() }
            return issues.count
        }
        .value()
    // DOC-SAMPLE-END
    return count
}

func docErrorBodies(api: SimpleNetworking) async -> String {
    // DOC-SAMPLE: TypedRequests/error-bodies
    let create = CreateIssue(owner: "apple", repo: "swift", body: NewIssue(title: ""))
    do {
        let issue = try await api.send(create)
        return "created #\(issue.number)"
    } catch .errorBody(let problem as APIProblem, let response) {
        return "\(response.statusCode): \(problem.error)"  // 422: title is empty
    } catch {
        return "\(error)"  // any other failure, an error body that did not decode too
    }
    // DOC-SAMPLE-END
}

// MARK: - ComingFromCrane

// DOC-SAMPLE: ComingFromCrane/request
struct UserDetailsRequest: Endpoint {
    var userID: Int
    var pathValues: [String: String] { ["userID": "\(userID)"] }

    static let method: HTTPMethod = .get
    var path: String { "/users/{userID}" }

    struct Response: Decodable, Sendable {
        var name: String
        var age: Int
    }
}
// DOC-SAMPLE-END

func docCraneCall(host: URL, log: EventLog) async throws -> Int {
    // `print` stands in for Swift's own, so that the test sees the lines.
    let print: @Sendable (String) -> Void = { log.append($0) }
    // DOC-SAMPLE: ComingFromCrane/call
    let session = SimpleNetworking(baseURL: host)
    session.defaultHeaders["Authorization"] = "Bearer my-token"  // shared by every request to this host

    // With handlers, like a callback
    try session.request(for: UserDetailsRequest(userID: 42))
        .on(success: { response in print("\(response.name) is \(response.age)") })
        .on(error: { error in print("failed: \(error)") })
        .execute(on: session)

    // Or awaited
    let response = try await session.send(UserDetailsRequest(userID: 42))
    print("\(response.name) is \(response.age)")
    // DOC-SAMPLE-END
    // The handler-style request may still be running: the awaited one does not wait for it, and closing the session
    // would cancel it. Both lines are awaited before the session closes.
    _ = await eventually { log.all.count == 2 }
    session.close()
    return response.age
}

// DOC-SAMPLE: ComingFromCrane/custom
struct UploadAvatar: Endpoint {
    static let method: HTTPMethod = .put
    var userID: Int
    var png: Data

    var path: String { "/users/{userID}/avatar" }
    var pathValues: [String: String] { ["userID": "\(userID)"] }

    func configure(_ request: SimpleRequest) -> SimpleRequest {
        request.body(png, contentType: "image/png").timeout(120)
    }
}
// DOC-SAMPLE-END

// DOC-SAMPLE: ComingFromCrane/crane-names
struct DeleteUserRequest: Endpoint {
    static let httpMethod: HTTPMethod = .delete
    static let pathTemplate = "/users/{userID}"

    var userID: Int
    var pathValues: [String: String] { ["userID": "\(userID)"] }
}
// DOC-SAMPLE-END

// MARK: - ComingFromNetworkKit

// DOC-SAMPLE: ComingFromNetworkKit/specification
struct GiphyAPI: Sendable {
    var apiKey: String
    var host: URL
    var baseURL: URL { host.appendingPathComponent("v1") }

    func search(_ input: Search) -> APICall<SearchResults> {
        endpoint(
            APICall(
                .get, "gifs/search",
                query: ["api_key": apiKey, "q": input.q, "limit": input.limit?.description]))
    }

    /// The shared request setup and decoding of every endpoint.
    private func endpoint<Output>(_ call: APICall<Output>) -> APICall<Output> {
        var call = call
        call.baseURL = baseURL
        call.headers["Accept"] = MediaType.json.rawValue
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        call.decoder = decoder
        return call
    }

    struct Search: Sendable {
        var q: String
        var limit: Int32?
    }

    struct SearchResults: Decodable, Sendable {
        struct GIFObject: Decodable, Sendable {
            let id: String
            let title: String
            let bitlyUrl: URL?
        }

        let data: [GIFObject]
    }
}
// DOC-SAMPLE-END

func docNetworkKitCall(api: SimpleNetworking, host: URL) async throws -> [String] {
    // DOC-SAMPLE: ComingFromNetworkKit/call
    let giphy = GiphyAPI(apiKey: "my-key", host: host)
    let results = try await api.send(giphy.search(.init(q: "cats", limit: 2)))
    print(results.data.map(\.title))
    // DOC-SAMPLE-END
    return results.data.map(\.title)
}

// `print` stands in for Swift's own, so that the test sees the lines.
func docNetworkKitThen(api: SimpleNetworking, print: @escaping @Sendable (String) -> Void) {
    // DOC-SAMPLE: ComingFromNetworkKit/then
    api.get("/users/1")
        .decodingErrors(APIProblem.self)  // thenFailure: a non-2xx body into the app's error type
        .transform { response in try response.decode(User.self).name }  // then: a response into a value
        .on(success: { name in print("hello \(name)") })
        .on(error: { error in  // failure: the typed error, or any other
            if let problem = error.errorBody(as: APIProblem.self) {
                print("API error: \(problem.error)")
            } else {
                print("failed: \(error)")
            }
        })
        .execute(on: api)
    // DOC-SAMPLE-END
}
