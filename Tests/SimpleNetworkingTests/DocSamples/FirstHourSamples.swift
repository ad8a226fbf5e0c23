import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// Samples of the articles for issue 33's first-hour items, each region shown verbatim in its article.

@Test("Testing article: reading a recorded request's headers")
func testingRecordedHeaders() async throws {
    // DOC-SAMPLE: Testing/recorded-headers
    let server = try MockServer()
    defer { server.shutdown() }
    server.route { _ in .status(204) }

    let api = SimpleNetworking(baseURL: server.baseURL)
    _ = try await api.post("/notes").header("X-Trace", "a1").body(json: ["text": "hi"]).response()

    let request = try #require(server.requests.first)
    #expect(request.header("x-trace") == "a1")  // any case, the first value
    #expect(request.httpHeaders["Content-Type"] == "application/json")  // HTTPHeaders, as on a response
    #expect(request.httpHeaders.values(for: "X-Trace") == ["a1"])  // every value of a repeated name
    #expect(request.bodyText == #"{"text":"hi"}"#)
    // DOC-SAMPLE-END
    api.close()
}

@Test("Requests and responses article: query parameters of mixed types, arrays in brackets")
func queryOfMixedTypes() async throws {
    let server = try MockServer()
    defer { server.shutdown() }
    server.route { _ in .status(204) }
    let api = SimpleNetworking(baseURL: server.baseURL)
    defer { api.close() }
    let sort: String? = nil
    // DOC-SAMPLE: RequestsAndResponses/query-pairs
    _ = try await api.get("/search")
        .query(["q": "cats", "page": 2, "ids": [4, 8], "sort": sort], arrays: .brackets)  // in this order
        .response()  // ?q=cats&page=2&ids%5B%5D=4&ids%5B%5D=8: ids[]=4&ids[]=8, no sort when nil
    // DOC-SAMPLE-END
    #expect(server.requests.first?.query == "q=cats&page=2&ids%5B%5D=4&ids%5B%5D=8")
}

@Test("Requests and responses article: validating statuses and content types")
func validatingResponses() async throws {
    let server = try MockServer()
    defer { server.shutdown() }
    server.route { _ in MockResponse(headers: [("Content-Type", "text/html")], body: Data("<p>".utf8)) }
    let api = SimpleNetworking(baseURL: server.baseURL)
    defer { api.close() }
    var caught: SimpleNetworkingError?
    // DOC-SAMPLE: RequestsAndResponses/validate
    do {
        let user = try await api.get("/users/1")
            .validate(statusCode: [200])  // a 203 or 206 fails too
            .validate(contentType: [.json])  // a login page in HTML fails before decoding
            .decode(User.self)
        print(user.name)
    } catch .unacceptableContentType(let response, let acceptable) {
        print("\(response.headers["Content-Type"] ?? "none") is not one of \(acceptable)")
    } catch {
        print(error)
    }
    // DOC-SAMPLE-END
    caught = await failure(of: api.get("/users/1").validate(contentType: [.json]))
    #expect(caught?.caseName == "unacceptableContentType")
}
