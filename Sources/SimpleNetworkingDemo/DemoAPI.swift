import Foundation
import SimpleNetworking
import SimpleNetworkingTesting

/// A user as the demo API returns it.
struct User: Decodable, Sendable {
    var id: Int
    var name: String
}

/// The demo's per-API manager: re-authenticates on 401 with one shared refresh.
final class DemoAPI: SimpleNetworking, @unchecked Sendable {
    override func authenticate() async throws {
        let response = try await get("/auth").accept(.json).response()
        defaultHeaders["Authorization"] = "Bearer \(response.json?["token"] as? String ?? "")"
    }

    override func execute(request: SimpleRequest) {
        reauthenticate(request, on: 401)
        super.execute(request: request)
    }
}

/// An in-process API on loopback: public users, a profile behind a bearer token, and a token endpoint.
func makeDemoServer() throws -> MockServer {
    let server = try MockServer()
    server.route { request in
        switch request.path {
        case "/users/1":
            return .json(#"{"id": 1, "name": "Ada Lovelace"}"#)
        case "/auth":
            return .json(#"{"token": "demo-token"}"#)
        case "/me" where request.header("Authorization") == "Bearer demo-token":
            return .json(#"{"id": 2, "name": "Grace Hopper"}"#)
        case "/me":
            return MockResponse(status: 401, headers: [("WWW-Authenticate", "Bearer")])
        default:
            return .json(#"{"error": "no such resource"}"#, status: 404)
        }
    }
    return server
}

/// The demo API's users as a typed endpoint: a path template, and the model it decodes into.
enum UserEndpoint: Endpoint {
    case user(id: Int)

    typealias Response = User

    var path: String { "/users/{id}" }
    var pathValues: [String: String] {
        switch self {
        case .user(let id): ["id": "\(id)"]
        }
    }
}
