import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The Swift samples of the `///` comments in Sources/SimpleNetworking/Client/: each region is shown verbatim by the
// comment its name points to. The types the samples name are declared in `ClientSymbolSamples`, outside the regions.

// swift-format-ignore: NeverForceUnwrap
// SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworking.swift#one-per-api
extension SimpleNetworking {
    static let github = SimpleNetworking(baseURL: URL(string: "https://api.github.com")!)
}
// SYMBOL-SAMPLE-END

/// The names the Client samples use, in a namespace of their own.
enum ClientSymbolSamples {
    struct User: Decodable, Sendable {
        var id: Int
        var name: String
    }

    struct APIError: Decodable, Sendable {
        var error: String
    }

    /// Stands for an app's environment picker.
    struct Environment: Sendable {
        struct Server: Sendable { var url: URL }
        var current: Server
    }

    static func configuration(url: URL) -> SimpleNetworking {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworking+Configuration.swift#configuration
        var configuration = SimpleNetworking.Configuration()
        configuration.timeout = 10
        configuration.handlerQueue = .mainActor
        let api = SimpleNetworking(baseURL: url, configuration: configuration)
        // SYMBOL-SAMPLE-END
        return api
    }

    static func pathTemplate(api: SimpleNetworking) async throws -> User {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworking+Verbs.swift#path-template
        let user = try await api.get("/users/{id}", path: ["id": "42"]).decode(User.self)
        // SYMBOL-SAMPLE-END
        return user
    }

    static func baseURLProvider(environment: Environment) -> SimpleNetworking {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworking.swift#base-url-provider
        let api = SimpleNetworking(baseURLProvider: { environment.current.url })
        // SYMBOL-SAMPLE-END
        return api
    }

    static func updateDefaultHeaders(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworking.swift#update-default-headers
        api.updateDefaultHeaders { headers in
            headers["X-Request-Count"] = String((Int(headers["X-Request-Count"] ?? "") ?? 0) + 1)
        }
        // SYMBOL-SAMPLE-END
    }

    static func errorBody(error: SimpleNetworkingError) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworkingError.swift#error-body
        if let apiError = error.errorBody(as: APIError.self) { print(apiError.error) }
        // SYMBOL-SAMPLE-END
    }

    /// A global 401 handler that retries once the (elided) authentication is done.
    final class GlobalHandlerAPI: SimpleNetworking, @unchecked Sendable {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworking.swift#execute-override
        override func execute(request: SimpleRequest) {
            if request.httpStatusHandlers[401] == nil {
                request.on(httpStatus: 401) { request, _ in
                    // Authenticate, then:
                    request.retry()
                    return false
                }
            }
            super.execute(request: request)
        }
        // SYMBOL-SAMPLE-END
    }

    /// Posts its credentials to `/auth` for a token, and re-authenticates on a 401.
    final class TokenAPI: SimpleNetworking, @unchecked Sendable {
        struct Token: Decodable, Sendable { var value: String }

        var credentials: [String: String] { ["user": "ada", "password": "secret"] }

        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Client/SimpleNetworking.swift#authenticate-override
        override func authenticate() async throws {
            let token = try await post("/auth").body(json: credentials).decode(Token.self)
            defaultHeaders["Authorization"] = "Bearer \(token.value)"
        }
        // SYMBOL-SAMPLE-END

        override func execute(request: SimpleRequest) {
            reauthenticate(request, on: 401)
            super.execute(request: request)
        }
    }
}

@Suite("The Client comments' samples run")
struct ClientSymbolSampleTests {
    @Test("A path template fills its placeholder as one path segment")
    func pathTemplate() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 42, "name": "Ada"}"#) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await ClientSymbolSamples.pathTemplate(api: api).name == "Ada")
        #expect(server.requests.map(\.path) == ["/users/42"])
    }

    @Test("updateDefaultHeaders counts in one step")
    func updateDefaultHeaders() throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        ClientSymbolSamples.updateDefaultHeaders(api: api)
        ClientSymbolSamples.updateDefaultHeaders(api: api)
        #expect(api.defaultHeaders["X-Request-Count"] == "2")
    }

    @Test("authenticate() posts the credentials and stores the bearer token")
    func authenticate() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.path == "/auth" { return .json(#"{"value": "fresh"}"#) }
            return request.header("Authorization") == "Bearer fresh" ? .json(#"{"ok": true}"#) : .status(401)
        }
        let api = ClientSymbolSamples.TokenAPI(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await api.get("/me").response().statusCode == 200)
        #expect(server.requests.map(\.path) == ["/me", "/auth", "/me"])
    }
}
