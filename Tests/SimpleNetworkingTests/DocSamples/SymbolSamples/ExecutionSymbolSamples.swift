import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The Swift samples of the `///` comments in Sources/SimpleNetworking/Execution/: each region is shown verbatim by
// the comment its name points to. The types the samples name are declared in `ExecutionSymbolSamples`.

/// The names the Execution samples use, in a namespace of their own.
enum ExecutionSymbolSamples {
    struct User: Decodable, Sendable {
        var id: Int
        var name: String
    }

    static func validateStatusCode(api: SimpleNetworking) async throws -> User {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Execution/ResponseValidation.swift#validate-status-code
        let user = try await api.get("/users/1").validate(statusCode: [200]).decode(User.self)  // a 203 fails
        // SYMBOL-SAMPLE-END
        return user
    }

    static func validateContentType(api: SimpleNetworking) async throws -> User {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Execution/ResponseValidation.swift#validate-content-type
        let user = try await api.get("/users/1").validate(contentType: [.json]).decode(User.self)  // HTML fails
        // SYMBOL-SAMPLE-END
        return user
    }

    static func response(api: SimpleNetworking) async throws -> [SimpleResponse] {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Execution/SimpleRequest+Async.swift#response
        let response = try await api.get("/users/1").response()  // bound by api.get
        let other = try await SimpleNetworking.get("/users/2").response(on: api)
        // SYMBOL-SAMPLE-END
        return [response, other]
    }

    static func decode(api: SimpleNetworking) async throws -> [User] {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Execution/SimpleRequest+Async.swift#decode
        let user = try await api.get("/users/1").decode(User.self)

        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let other = try await api.get("/users/2").decode(User.self, decoder: decoder)
        // SYMBOL-SAMPLE-END
        return [user, other]
    }

    static func execute(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Execution/SimpleRequest+Execution.swift#execute
        api.get("/users/1").on(success: { print($0.statusCode) }).execute()
        // SYMBOL-SAMPLE-END
    }
}

@Suite("The Execution comments' samples run")
struct ExecutionSymbolSampleTests {
    @Test("validate(statusCode:) fails a 203 that decode alone accepts")
    func validateStatusCode() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 1, "name": "Ada"}"#, status: 203) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        await #expect(throws: SimpleNetworkingError.self) {
            _ = try await ExecutionSymbolSamples.validateStatusCode(api: api)
        }
    }

    @Test("validate(contentType:) fails an HTML body")
    func validateContentType() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("<html></html>", headers: [("Content-Type", "text/html")]) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        await #expect(throws: SimpleNetworkingError.self) {
            _ = try await ExecutionSymbolSamples.validateContentType(api: api)
        }
    }

    @Test("response() runs a bound request and an unbound one on the client given")
    func response() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 1, "name": "Ada"}"#) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let responses = try await ExecutionSymbolSamples.response(api: api)
        #expect(responses.map(\.statusCode) == [200, 200])
        #expect(server.requests.map(\.path) == ["/users/1", "/users/2"])
        #expect(try await ExecutionSymbolSamples.decode(api: api).map(\.name) == ["Ada", "Ada"])
    }
}
