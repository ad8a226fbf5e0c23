import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The Swift samples of the `///` comments in Sources/SimpleNetworking/Authentication/: each region is shown verbatim
// by the comment its name points to.

/// The Authentication samples, in a namespace of their own.
enum AuthenticationSymbolSamples {
    static func basicAuthorization(api: SimpleNetworking, password: String) async throws -> SimpleResponse {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Authentication/SimpleRequest+BasicAuthorization.swift#basic
        let response = try await api.get("/account").basicAuthorization(user: "ada", password: password).response()
        // SYMBOL-SAMPLE-END
        return response
    }

    // SYMBOL-SAMPLE: Sources/SimpleNetworking/Authentication/Reauthentication.swift#reauthenticate
    final class MyAPI: SimpleNetworking, @unchecked Sendable {
        override func authenticate() async throws {
            let response = try await get("/auth").accept(.json).response()
            defaultHeaders["Authorization"] = response.json?["token"] as? String
        }

        override func execute(request: SimpleRequest) {
            reauthenticate(request, on: 401)
            super.execute(request: request)
        }
    }
    // SYMBOL-SAMPLE-END
}

@Suite("The Authentication comments' samples run")
struct AuthenticationSymbolSampleTests {
    @Test("basicAuthorization sends user:password in Base64")
    func basicAuthorization() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.header("Authorization") == "Basic YWRhOnNlY3JldA==" ? .status(204) : .status(401)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let response = try await AuthenticationSymbolSamples.basicAuthorization(api: api, password: "secret")
        #expect(response.statusCode == 204)
    }

    @Test("The subclass fetches a token once and retries the 401")
    func reauthenticates() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.path == "/auth" { return .json(#"{"token": "fresh"}"#) }
            return request.header("Authorization") == "fresh" ? .json(#"{"ok": true}"#) : .status(401)
        }
        let api = AuthenticationSymbolSamples.MyAPI(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await api.get("/me").response().statusCode == 200)
        #expect(server.requests.map(\.path) == ["/me", "/auth", "/me"])
    }
}
