import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A form or query value with every kind of field the helpers accept.
private struct SearchForm: Encodable {
    var q: String
    var limit: Int?
    var offset: Int?
    var exact: Bool
    var ratio: Double
    var tags: [String]
}

private struct Nested: Encodable {
    struct Inner: Encodable { var a = 1 }
    var inner = Inner()
}

@Suite("Body and query helpers")
struct BodyHelperTests {
    /// What the server received for `request`, sent on a fresh client.
    private func received(_ build: (SimpleNetworking) -> SimpleRequest) async throws -> RecordedRequest? {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        _ = try await build(api).response()
        return server.requests.first
    }

    /// The error `request` fails with, and how many requests reached the server.
    private func refusal(_ build: (SimpleNetworking) -> SimpleRequest) async throws -> (SimpleNetworkingError?, Int) {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let error = await failure(of: build(api))
        return (error, server.requestCount)
    }

    @Test("A JSON object is sent as JSON, keys sorted, nil as null")
    func jsonObjectBody() async throws {
        let object: [String: Any?] = ["name": "Kevin Malone", "id": "123", "manager": nil, "tags": ["sales", 3, true]]
        let request = try await received { $0.post("/users").body(jsonObject: object as Any) }
        #expect(request?.bodyText == #"{"id":"123","manager":null,"name":"Kevin Malone","tags":["sales",3,true]}"#)
        #expect(request?.header("Content-Type") == "application/json")
    }

    /// Objects `JSONSerialization` refuses, built in the test since `Any` is not `Sendable`.
    enum InvalidObject: String, CaseIterable, Sendable {
        case dateInside, topLevelString, notANumber, nonStringKey

        var object: Any {
            switch self {
            case .dateInside: ["when": Date()]
            case .topLevelString: "text"
            case .notANumber: ["x": Double.nan]
            case .nonStringKey: [1: "one"]
            }
        }
    }

    @Test(
        "A value that is not a JSON object fails with invalidRequest and nothing is sent",
        arguments: InvalidObject.allCases)
    func invalidJSONObject(invalid: InvalidObject) async throws {
        let label = invalid.rawValue
        let object = invalid.object
        let (error, sent) = try await refusal { $0.post("/users").body(jsonObject: object) }
        guard case .invalidRequest(let reason) = error else {
            Issue.record("\(label): expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("JSON object"), "\(label)")
        #expect(sent == 0, "\(label)")
    }

    @Test("A dictionary becomes a form body, percent-encoded, in name order")
    func formFromDictionary() async throws {
        let request = try await received { $0.post("/login").body(form: ["user": "ada", "password": "p&ss w=rd+é"]) }
        #expect(request?.bodyText == "password=p%26ss%20w%3Drd%2B%C3%A9&user=ada")
        #expect(request?.header("Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test("An Encodable becomes a form body: nil left out, arrays repeated, numbers and Booleans as text")
    func formFromEncodable() async throws {
        let form = SearchForm(q: "cats & dogs", limit: 25, offset: nil, exact: true, ratio: 2.5, tags: ["a", "b"])
        let request = try await received { $0.post("/search").body(form: form) }
        #expect(request?.bodyText == "exact=true&limit=25&q=cats%20%26%20dogs&ratio=2.5&tags=a&tags=b")
    }

    @Test("A Content-Type set on the request wins over the form's")
    func formKeepsContentType() async throws {
        let request = try await received {
            $0.post("/login").header("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
                .body(form: ["user": "ada"])
        }
        #expect(request?.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test("A nested value is no form and no query: invalidRequest, nothing sent", arguments: [false, true])
    func nestedValueRefused(asQuery: Bool) async throws {
        let (error, sent) = try await refusal { api in
            asQuery ? api.get("/search").query(from: Nested()) : api.post("/search").body(form: Nested())
        }
        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("Nested"))
        #expect(sent == 0)
    }

    @Test("Query parameters from a dictionary leave nil values out and follow the other parameters")
    func queryFromDictionary() async throws {
        let limit: Int? = nil
        let request = try await received {
            $0.get("/search?fixed=1").query("first", "x y")
                .query(from: ["q": "cats/dogs?", "limit": limit.map(String.init), "lang": "en"])
        }
        #expect(request?.query == "fixed=1&first=x%20y&lang=en&q=cats%2Fdogs%3F")
    }

    @Test("Query parameters from an Encodable follow the encoder's key strategy")
    func queryFromEncodable() async throws {
        struct Page: Encodable {
            var pageSize: Int
            var afterID: String?
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let request = try await received { $0.get("/items").query(from: Page(pageSize: 50), encoder: encoder) }
        #expect(request?.query == "page_size=50")
    }

    @Test("decode(_:decoder:) uses the request's decoder instead of the client's")
    func perRequestDecoder() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"display_name": "Ada"}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase

        let profile = try await api.get("/me").decode(Profile.self, decoder: decoder)
        #expect(profile.displayName == "Ada")
        do {
            _ = try await api.get("/me").decode(Profile.self)
            Issue.record("the client's plain decoder should not read snake_case")
        } catch {
            guard case .decodingFailed = error else {
                Issue.record("expected decodingFailed, got \(error)")
                return
            }
        }
    }
}
