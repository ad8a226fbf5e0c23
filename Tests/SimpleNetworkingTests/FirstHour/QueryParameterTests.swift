import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Query parameters of mixed types, in order, with array and Boolean forms")
struct QueryParameterTests {
    private struct Filter: Encodable {
        var ids: [Int]
        var open: Bool
        var name: String?
    }

    private struct Inner: Encodable {
        var a = 1
    }

    /// The raw query the server received for the request `build` makes.
    private func receivedQuery(_ build: (SimpleNetworking) -> SimpleRequest) async throws -> String? {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        _ = try await build(api).response()
        return server.requests.first?.query
    }

    @Test("Pairs of mixed types keep the order written; nil is left out; arrays repeat the name by default")
    func mixedPairsInOrder() async throws {
        let limit: Int? = nil
        let query = try await receivedQuery { api in
            api.get("/search").query(["q": "cats & dogs", "page": 2, "ids": [4, 8], "open": true, "limit": limit])
        }
        #expect(query == "q=cats%20%26%20dogs&page=2&ids=4&ids=8&open=true")
    }

    @Test(
        "Arrays as brackets, indexed or the name repeated; Booleans as literal or numeric",
        arguments: [
            (QueryArrayEncoding.brackets, QueryBoolEncoding.literal, "ids%5B%5D=4&ids%5B%5D=8&open=true"),
            (.indexed, .numeric, "ids%5B0%5D=4&ids%5B1%5D=8&open=1"),
            (.repeatedName, .numeric, "ids=4&ids=8&open=1"),
        ])
    func encodings(arrays: QueryArrayEncoding, booleans: QueryBoolEncoding, expected: String) async throws {
        let pairs = try await receivedQuery { api in
            api.get("/x").query(["ids": [4, 8], "open": true], arrays: arrays, booleans: booleans)
        }
        #expect(pairs == expected)
        let value = try await receivedQuery { api in
            api.get("/x").query(from: Filter(ids: [4, 8], open: true), arrays: arrays, booleans: booleans)
        }
        #expect(value == expected)
    }

    @Test("The server reads ids[]=4&ids[]=8 once the brackets are decoded")
    func bracketsDecoded() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        _ = try await api.get("/x").query(["ids": ["a b", "c"]], arrays: .brackets).response()
        let items = server.requests.first?.queryItems.map { "\($0.name)=\($0.value)" }
        #expect(items == ["ids[]=a b", "ids[]=c"])
    }

    @Test("query(from:) takes a dictionary of mixed types, in name order as before")
    func mixedDictionaryFrom() async throws {
        let query = try await receivedQuery { api in
            api.get("/search").query(from: ["q": "cats", "page": 2, "ratio": 0.5, "none": nil])
        }
        #expect(query == "page=2&q=cats&ratio=0.5")
        let homogeneous = try await receivedQuery { api in
            api.get("/search").query(from: ["q": "cats", "limit": nil as String?])
        }
        #expect(homogeneous == "q=cats")
    }

    @Test("An encoder's date strategy applies; the new forms follow query(_:_:) in the order called")
    func encoderAndOrder() async throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let query = try await receivedQuery { api in
            api.get("/x").query("first", "1")
                .query(["since": Date(timeIntervalSince1970: 0)], encoder: encoder)
                .query("last", nil)
        }
        #expect(query == "first=1&since=1970-01-01T00%3A00%3A00Z&last")
    }

    @Test("A value that is an object is invalidRequest, naming the parameter, and nothing is sent")
    func objectRefused() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.get("/x").query(["q": "cats", "filter": Inner()]))
        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("'filter'"), "\(reason)")
        let nested = await failure(of: api.get("/x").query(from: ["deep": [["a": 1]]]))
        #expect(nested?.caseName == "invalidRequest")
        #expect(server.requestCount == 0)
    }
}
