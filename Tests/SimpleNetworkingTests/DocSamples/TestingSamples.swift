import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Test("Testing article: testing with MockServer")
func testingWithMockServer() async throws {
    // DOC-SAMPLE: Testing/mock-server
    let server = try MockServer()
    defer { server.shutdown() }
    server.enqueue(MockResponse(status: 503, headers: [("Retry-After", "0")]))
    server.enqueue(.json(#"{"id": 1, "name": "Ada"}"#))

    let api = SimpleNetworking(baseURL: server.baseURL)
    let user = try await api.get("/users/1").decode(User.self)

    #expect(user.name == "Ada")
    #expect(server.requests.map(\.path) == ["/users/1", "/users/1"])
    // DOC-SAMPLE-END
    api.close()
}

@Test("Testing article: testing with MockTransport")
func testingWithMockTransport() async throws {
    // swift-format-ignore: NeverForceUnwrap
    // DOC-SAMPLE: Testing/mock-transport
    let transport = MockTransport()
    transport.enqueue(.failure(.cannotConnectToHost))
    transport.enqueue(.json(#"{"id": 1, "name": "Ada"}"#))
    let clock = TestClock()  // the retry's wait passes at once, and is recorded
    var configuration = SimpleNetworking.Configuration()
    configuration.clock = clock.simpleClock

    let api = SimpleNetworking(
        baseURL: URL(string: "https://api.example.com")!, transport: transport, configuration: configuration)
    let user = try await api.get("/users/1").decode(User.self)

    #expect(user.id == 1)
    #expect(transport.requestCount == 2)
    #expect(clock.waits.count == 1)  // one backoff wait before the retry, in no real time
    // DOC-SAMPLE-END
}

@Test("Testing article: MockTransport serving a MockServer's routes in memory")
func mockTransportServing() async throws {
    // DOC-SAMPLE: Testing/mock-transport-serving
    let server = try MockServer()
    server.route { request in .json(#"{"id": 1, "name": "Ada"}"#) }

    let api = SimpleNetworking(baseURL: server.baseURL, transport: MockTransport(serving: server))
    let user = try await api.get("/users/1").decode(User.self)

    #expect(user.name == "Ada")
    #expect(server.requests.map(\.path) == ["/users/1"])
    // DOC-SAMPLE-END
    server.shutdown()
}
