import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client keeps the URLs its base URL built, by path and query (`BuiltURLs`): a path requested again must get the
/// very URL a fresh client builds for it, however many paths came between.
@Suite("URLs kept for paths requested again")
struct BuiltURLTests {
    /// Paths and query items, with the URL each must be sent to.
    static let cases: [(path: String, query: [(String, String)], expected: String)] = [
        ("/users", [], "https://api.example.com/v1/users"),
        ("users/42", [("page", "2")], "https://api.example.com/v1/users/42?page=2"),
        ("/a b/ü", [], "https://api.example.com/v1/a%20b/%C3%BC"),
        ("/search?q=a+b", [("limit", "a&b")], "https://api.example.com/v1/search?q=a+b&limit=a%26b"),
        ("/users", [("page", "3")], "https://api.example.com/v1/users?page=3"),
    ]

    /// A client on a mock transport that answers every request with 200.
    private func makeClient() -> (SimpleNetworking, MockTransport) {
        let transport = MockTransport()
        transport.route { _ in .status(200) }
        let base = URL(string: "https://api.example.com/v1") ?? URL(fileURLWithPath: "/")
        return (SimpleNetworking(baseURL: base, transport: transport), transport)
    }

    /// Sends `path` with `query` on `api`.
    private func send(_ path: String, _ query: [(String, String)], on api: SimpleNetworking) async throws {
        var request = api.get(path)
        for (name, value) in query { request = request.query(name, value) }
        _ = try await request.response()
    }

    @Test("A path and query sent again go to the URL built the first time, the one a fresh client builds")
    func repeatedPaths() async throws {
        let (api, transport) = makeClient()
        for _ in 0..<3 {
            for (path, query, _) in Self.cases { try await send(path, query, on: api) }
        }
        let sent = transport.requests.map(\.url.absoluteString)
        let expected = Self.cases.map(\.expected)
        #expect(sent == expected + expected + expected)
    }

    @Test("Past the number of URLs kept, paths still go to the right URLs, and so does one sent before")
    func manyPaths() async throws {
        let (api, transport) = makeClient()
        for index in 0..<200 { try await send("/items/\(index)", [], on: api) }
        try await send("/items/0", [], on: api)
        try await send("/items/199", [], on: api)
        let sent = transport.requests.map(\.url.absoluteString)
        let expected = (0..<200).map { "https://api.example.com/v1/items/\($0)" }
        #expect(sent == expected + [expected[0], expected[199]])
    }

    @Test("Tasks sending the same few paths at once each get the URL of their own path")
    func concurrentPaths() async throws {
        let (api, transport) = makeClient()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for index in 0..<100 {
                tasks.addTask { try await send("/p/\(index % 7)", [("n", "\(index)")], on: api) }
            }
            try await tasks.waitForAll()
        }
        let sent = Set(transport.requests.map(\.url.absoluteString))
        let expected = Set((0..<100).map { "https://api.example.com/v1/p/\($0 % 7)?n=\($0)" })
        #expect(sent == expected)
    }
}
