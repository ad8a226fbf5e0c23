import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A server for the typed samples of the DocC articles: repositories, issues, users and GIFs.
private func makeSampleServer() throws -> MockServer {
    let server = try MockServer()
    server.route { request in
        switch (request.method, request.path) {
        case ("GET", "/users/1"), ("GET", "/users/42"):
            return .json(#"{"id": 1, "name": "Ada", "age": 36}"#)
        case ("GET", "/repos/apple/swift"): return .json(#"{"id": 1, "name": "swift"}"#)
        case ("DELETE", "/v1/users/7"): return .status(204)
        case ("POST", "/oauth/token"): return .json(#"{"token": "t1"}"#)
        case ("PATCH", "/repos/apple/swift"): return .json(#"{"id": 1, "name": "swift-lang"}"#)
        case ("GET", "/repos/apple/swift/issues"): return .json(#"[{"number": 1, "title": "Crash"}]"#)
        case ("POST", "/repos/apple/swift/issues"):
            return request.bodyText.contains(#""title":"""#)
                ? .json(#"{"error": "title is empty"}"#, status: 422) : .json(#"{"number": 2, "title": "Hi"}"#)
        case ("GET", "/v1/gifs/search"):
            return .json(#"{"data": [{"id": "a1", "title": "Cat", "bitly_url": "https://gph.is/x"}]}"#)
        default: return .json(#"{"error": "no such resource"}"#, status: 404)
        }
    }
    return server
}

@Suite("DocC typed-request samples run")
struct TypedRequestSampleTests {
    @Test("Statuses, templates, an enum endpoint and the handler style")
    func typedRequests() async throws {
        let server = try makeSampleServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await docNamedStatus(api: api))
        #expect(try await docPathTemplate(api: api).name == "Ada")
        #expect(try await docEnumSend(api: api).name == "swift-lang")
        let log = EventLog()
        try docHandlerStyle(api: api, print: { log.append($0) })
        #expect(await eventually { log.all.count == 2 })
        #expect(log.all == ["repo swift", "done"])
        #expect(try await docTransform(api: api) == 1)
        let (status, name) = try await docRawResponse(api: api)
        #expect(status == 200 && name == "swift")
        let renamed = try #require(server.requests.first { $0.method == "PATCH" })
        #expect(renamed.bodyText == #"{"name":"swift-lang"}"#)
    }

    @Test("The specification sends its token and query, and a struct's error body arrives typed")
    func specificationAndErrorBodies() async throws {
        let server = try makeSampleServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.url("/elsewhere"))
        defer { api.close() }
        let issues = try await docSpecificationSend(api: api, baseURL: server.baseURL)
        #expect(issues.map(\.number) == [1, 2])
        #expect(server.requests.map(\.target) == ["/repos/apple/swift/issues?state=open", "/repos/apple/swift/issues"])
        #expect(server.requests.allSatisfy { $0.header("Authorization") == "Bearer my-token" })

        let root = SimpleNetworking(baseURL: server.baseURL)
        defer { root.close() }
        #expect(await docErrorBodies(api: root) == "422: title is empty")
    }

    @Test("Crane's names: httpMethod is sent and pathTemplate filled; a call outside the base path")
    func craneNamesAndTokenCall() async throws {
        let server = try makeSampleServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.url("/v1"))
        defer { api.close() }
        try await api.send(DeleteUserRequest(userID: 7))
        #expect(try await docTokenCall(api: api) == "t1")
        #expect(server.requests.map { "\($0.method) \($0.path)" } == ["DELETE /v1/users/7", "POST /oauth/token"])
    }

    @Test("Crane's request types: handlers and awaited, and a custom body")
    func crane() async throws {
        let server = try makeSampleServer()
        defer { server.shutdown() }
        let log = EventLog()
        #expect(try await docCraneCall(host: server.baseURL, log: log) == 36)
        #expect(log.all == ["Ada is 36", "Ada is 36"])
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.header("Authorization") == "Bearer my-token" })

        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let outcome = await outcome {
            try await api.send(UploadAvatar(userID: 7, png: Data([0x89, 0x50])))
            return SimpleResponse(statusCode: 0)
        }
        #expect(outcome.failureValue?.statusCode == 404)
        let upload = try #require(server.requests.last)
        #expect(upload.method == "PUT")
        #expect(upload.path == "/users/7/avatar")
        #expect(upload.header("Content-Type") == "image/png")
        #expect(upload.body == Data([0x89, 0x50]))
    }

    @Test("NetworkKit's GIPHY interface and its then, thenFailure and failure forms")
    func networkKit() async throws {
        let server = try makeSampleServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await docNetworkKitCall(api: api, host: server.baseURL) == ["Cat"])
        let search = try #require(server.requests.first)
        #expect(search.target == "/v1/gifs/search?api_key=my-key&limit=2&q=cats")
        #expect(search.header("Accept") == "application/json")

        let log = EventLog()
        docNetworkKitThen(api: api, print: { log.append($0) })
        #expect(await eventually { log.all.count == 1 })
        let missing = SimpleNetworking(baseURL: server.url("/nowhere"))
        defer { missing.close() }
        docNetworkKitThen(api: missing, print: { log.append($0) })
        #expect(await eventually { log.all.count == 2 })
        #expect(log.all == ["hello Ada", "API error: no such resource"])
    }
}
