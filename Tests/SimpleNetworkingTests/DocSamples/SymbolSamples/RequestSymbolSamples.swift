import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The Swift samples of the `///` comments in Sources/SimpleNetworking/Request/: each region is shown verbatim by the
// comment its name points to. The types the samples name are declared in `RequestSymbolSamples`.

/// The names the Request samples use, in a namespace of their own.
enum RequestSymbolSamples {
    struct User: Decodable, Sendable {
        var id: Int
        var name: String
    }

    struct Filter: Encodable {
        var ids: [Int]
        var open: Bool
    }

    static func headers() -> String? {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/HTTPHeaders.swift#headers
        let headers: HTTPHeaders = ["Accept": "application/json"]
        let accept = headers["accept"]  // "application/json"
        // SYMBOL-SAMPLE-END
        return accept
    }

    static func bodyJSONObject(api: SimpleNetworking) -> SimpleRequest {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleRequest+BodyHelpers.swift#body-json-object
        api.post("/users").body(jsonObject: ["id": "123", "name": "Kevin Malone", "tags": ["sales"]])
        // SYMBOL-SAMPLE-END
    }

    static func bodyForm(api: SimpleNetworking, password: String) -> SimpleRequest {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleRequest+BodyHelpers.swift#body-form
        api.post("/login").body(form: ["user": "ada", "password": password])  // password=...&user=ada
        // SYMBOL-SAMPLE-END
    }

    static func queryFrom(api: SimpleNetworking, limit: Int?) -> SimpleRequest {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleRequest+BodyHelpers.swift#query-from
        api.get("/search").query(from: ["q": "cats", "limit": limit.map(String.init)])  // no limit when nil
        // SYMBOL-SAMPLE-END
    }

    static func queryArrays(api: SimpleNetworking) -> SimpleRequest {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleRequest+BodyHelpers.swift#query-arrays
        api.get("/search").query(["q": "cats", "page": 2, "ids": [4, 8]], arrays: .brackets)
        // ?q=cats&page=2&ids%5B%5D=4&ids%5B%5D=8, that is ids[]=4&ids[]=8
        // SYMBOL-SAMPLE-END
    }

    static func queryFromEncodings(api: SimpleNetworking) -> SimpleRequest {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleRequest+BodyHelpers.swift#query-from-encodings
        api.get("/items").query(from: Filter(ids: [4, 8], open: true), arrays: .indexed, booleans: .numeric)
        // ?ids%5B0%5D=4&ids%5B1%5D=8&open=1, that is ids[0]=4&ids[1]=8&open=1
        // SYMBOL-SAMPLE-END
    }

    // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleRequest+MainActorHandlers.swift#cats-model
    @MainActor final class CatsModel {
        var names: [String] = []
        var failure: String?

        func load(from api: SimpleNetworking) {
            api.get("/cats")
                .onMainActor(success: { response in self.names = (try? response.decode([String].self)) ?? [] })
                .onMainActor(error: { error in self.failure = error.localizedDescription })
                .execute()
        }
    }
    // SYMBOL-SAMPLE-END

    static func request(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleRequest.swift#request
        SimpleNetworking.get("/users/42")
            .accept(.json)
            .on(success: { response in print(response.statusCode) })
            .on(error: { error in print(error) })
            .execute(on: api)
        // SYMBOL-SAMPLE-END
    }

    static func responseDecode(api: SimpleNetworking) async throws -> User {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Request/SimpleResponse.swift#decode
        let user = try await api.get("/users/1").transform { try $0.decode(User.self) }.value()
        // SYMBOL-SAMPLE-END
        return user
    }
}

@Suite("The Request comments' samples run")
struct RequestSymbolSampleTests {
    @Test("Header lookup ignores case")
    func headers() {
        #expect(RequestSymbolSamples.headers() == "application/json")
    }

    @Test("The query samples send what their comments say")
    func queries() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        _ = try await RequestSymbolSamples.queryFrom(api: api, limit: nil).response()
        _ = try await RequestSymbolSamples.queryArrays(api: api).response()
        _ = try await RequestSymbolSamples.queryFromEncodings(api: api).response()
        _ = try await RequestSymbolSamples.bodyForm(api: api, password: "secret").response()
        #expect(
            server.requests.map(\.target) == [
                "/search?q=cats", "/search?q=cats&page=2&ids%5B%5D=4&ids%5B%5D=8",
                "/items?ids%5B0%5D=4&ids%5B1%5D=8&open=1", "/login",
            ])
        #expect(server.requests.last?.bodyText == "password=secret&user=ada")
    }

    @Test("SimpleResponse.decode(_:) decodes in a transform")
    func responseDecode() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 1, "name": "Ada"}"#) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await RequestSymbolSamples.responseDecode(api: api).name == "Ada")
    }
}
