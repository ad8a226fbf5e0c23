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
