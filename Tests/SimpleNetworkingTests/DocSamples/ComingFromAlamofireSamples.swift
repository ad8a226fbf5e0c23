import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The samples of the DocC article ComingFromAlamofire.md, run against loopback.

// `print` stands in for Swift's own, so that the test sees the lines.
func alamofireResponseDecodable(api: SimpleNetworking, print: @escaping @Sendable (String) -> Void) {
    // DOC-SAMPLE: ComingFromAlamofire/response-decodable
    api.get("/users/1")
        .decoding(User.self)  // only a 2xx is decoded: validate() is built in
        .on(success: { user in print("hello \(user.name)") })
        .on(error: { error in print("error: \(error)") })
        .execute(on: api)
    // DOC-SAMPLE-END
}

struct Login: Encodable, Sendable {
    var email: String
    var password: String
}

struct Session: Decodable, Sendable {
    var token: String
}

func alamofireParameters(api: SimpleNetworking) async throws(SimpleNetworkingError) -> Session {
    // DOC-SAMPLE: ComingFromAlamofire/parameters
    let login = Login(email: "ada@example.com", password: "secret")
    let session = try await api.post("/login")
        .body(json: login)  // JSONParameterEncoder.default
        .header("X-Client", "docs")  // headers: HTTPHeaders
        .retryPolicy(RetryPolicy(maximumAttempts: 3))  // interceptor: .retryPolicy
        .timeout(15)  // requestModifier: { $0.timeoutInterval = 15 }
        .decode(Session.self)
    let page = try await api.get("/search")
        .query(from: ["q": "cats", "page": "2"])  // URLEncodedFormParameterEncoder, in the query
        .response()
    print(page.statusCode)
    // DOC-SAMPLE-END
    return session
}

struct Token: Decodable, Sendable {
    var accessToken: String
}

/// The article's interceptor replacement, in a namespace of its own.
enum AlamofireArticle {
    // DOC-SAMPLE: ComingFromAlamofire/interceptor
    final class TokenAPI: SimpleNetworking, @unchecked Sendable {
        // RequestInterceptor.adapt: default headers go with every attempt, retries included.
        // RequestInterceptor.retry: one refresh for every request that got a 401 meanwhile.
        override func authenticate() async throws {
            let token = try await post("/oauth/token").body(form: ["grant_type": "refresh_token"]).decode(Token.self)
            defaultHeaders["Authorization"] = "Bearer \(token.accessToken)"
        }

        override func execute(request: SimpleRequest) {
            reauthenticate(request, on: 401)
            super.execute(request: request)
        }
    }
    // DOC-SAMPLE-END
}

func alamofireTransfers(api: SimpleNetworking, destination: URL, photo: URL) async throws -> SimpleResponse {
    // DOC-SAMPLE: ComingFromAlamofire/transfers
    // AF.download(_:to:) with downloadProgress
    let response = try await api.get("/archive.zip")
        .downloadProgress { progress in print(progress.fractionCompleted ?? 0) }
        .download(to: destination)

    // AF.upload(multipartFormData:to:)
    var form = MultipartFormData()
    form.append("Ada", name: "name")
    form.append(fileAt: photo, name: "photo", contentType: "image/jpeg")
    _ = try await api.post("/profile").body(multipart: form).response()
    // DOC-SAMPLE-END
    return response
}

@Suite("The ComingFromAlamofire article's samples run")
struct ComingFromAlamofireSampleTests {
    @Test("responseDecodable, parameters and headers map onto one request each")
    func requests() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/users/1": .json(#"{"id": 1, "name": "Ada"}"#)
            case "/login": .json(#"{"token": "t"}"#)
            default: .status(204)
            }
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let log = EventLog()
        alamofireResponseDecodable(api: api, print: { log.append($0) })
        #expect(await eventually { log.all == ["hello Ada"] })
        #expect(try await alamofireParameters(api: api).token == "t")
        let login = try #require(server.requests.first { $0.path == "/login" })
        #expect(login.header("X-Client") == "docs")
        #expect(login.bodyText.contains(#""email":"ada@example.com""#))
        #expect(server.requests.last?.query == "page=2&q=cats")
    }

    @Test("The interceptor replacement refreshes the token and retries")
    func interceptor() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.path == "/oauth/token" { return .json(#"{"accessToken": "fresh"}"#) }
            return request.header("Authorization") == "Bearer fresh" ? .status(204) : .status(401)
        }
        let api = AlamofireArticle.TokenAPI(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await api.get("/me").response().statusCode == 204)
        #expect(server.requests.map(\.path) == ["/me", "/oauth/token", "/me"])
    }

    @Test("Download and multipart upload")
    func transfers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/archive.zip" ? MockResponse(body: Data(repeating: 1, count: 1000)) : .status(204)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let folder = try ScratchDirectory()
        let photo = folder.file("photo.jpg")
        try Data("jpg".utf8).write(to: photo)
        let response = try await alamofireTransfers(api: api, destination: folder.file("a.zip"), photo: photo)
        #expect(try Data(contentsOf: folder.file("a.zip")).count == 1000)
        #expect(response.fileURL == folder.file("a.zip"))
        #expect(server.requests.last?.multipartParts?.map(\.text) == ["Ada", "jpg"])
    }
}
