import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The Swift blocks of the `///` comments in Sources/SimpleNetworking/Typed/, between `SYMBOL-SAMPLE: File#name` and
// `SYMBOL-SAMPLE-END`: `ReadmeTests.SymbolDocs` checks that each comment shows its region verbatim. The samples use
// the README's `User`; the names they take as given are declared in this namespace, outside the regions.
enum TypedSymbolSamples {
    /// The API's error body: `{"error": "..."}`.
    struct APIError: Decodable, Sendable {
        var error: String
    }

    /// The body of a new user.
    struct NewUser: Encodable, Sendable {
        var name: String
    }

    // The endpoint of `Endpoint.swift`'s sample, which the samples of `SimpleNetworking+Endpoint.swift` and
    // `TransformedRequest.swift` send too.
    // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/Endpoint.swift#enum
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
    // SYMBOL-SAMPLE-END

    static func endpoint(api: SimpleNetworking) async throws -> User {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/Endpoint.swift#send
        let user = try await api.send(UserEndpoint.user(id: 1))
        // SYMBOL-SAMPLE-END
        return user
    }

    static func httpStatus(api: SimpleNetworking) async throws -> HTTPStatus {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/HTTPStatus.swift#compare
        let response = try await api.get("/users/1").response()
        if response.status == .noContent { print("nothing to show") }
        // SYMBOL-SAMPLE-END
        return response.status
    }

    static func requestForEndpoint(api: SimpleNetworking) throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/SimpleNetworking+Endpoint.swift#handlers
        try api.request(for: UserEndpoint.user(id: 1))
            .on(success: { user in print(user.name) })
            .on(error: { error in print(error) })
            .execute(on: api)
        // SYMBOL-SAMPLE-END
    }

    static func transform(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/TransformedRequest.swift#transform
        api.get("/users/1")
            .transform { try $0.decode(User.self) }
            .on(success: { user in print(user.name) })
            .on(error: { error in print(error) })
            .execute(on: api)
        // SYMBOL-SAMPLE-END
    }

    static func decoding(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/TransformedRequest.swift#decoding
        api.get("/users/1") { request in
            request.decoding(User.self).on(success: { user in print(user.name) }).request
        }
        // SYMBOL-SAMPLE-END
    }

    static func decodingErrors(api: SimpleNetworking, newUser: NewUser) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/TransformedRequest.swift#error-body
        do {
            _ = try await api.post("/users").body(json: newUser).decodingErrors(APIError.self).response()
        } catch .errorBody(let body as APIError, let response) {
            print(response.statusCode, body.error)
        }
        // SYMBOL-SAMPLE-END
    }

    static func value(api: SimpleNetworking) async throws -> User {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/TransformedRequest.swift#value
        let user = try await api.get("/users/1").decoding(User.self).value()
        // SYMBOL-SAMPLE-END
        return user
    }

    static func rawResponse(api: SimpleNetworking) async throws -> SimpleResponse {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/TransformedRequest.swift#raw-response
        let response = try await api.request(for: UserEndpoint.user(id: 1)).response()
        // SYMBOL-SAMPLE-END
        return response
    }
}

/// The note the `Notes` specification of `APICall.swift`'s sample decodes.
private struct Note: Decodable, Sendable {
    var id: Int
    var text: String
}

private func typedAPICallSample(api: SimpleNetworking, baseURL: URL) async throws -> Note {
    // SYMBOL-SAMPLE: Sources/SimpleNetworking/Typed/APICall.swift#specification
    struct Notes: Sendable {
        var baseURL: URL
        var tenant: String

        func note(id: Int) -> APICall<Note> {
            APICall(.get, "/notes/{id}", baseURL: baseURL, pathValues: ["id": "\(id)"], headers: ["X-Tenant": tenant])
        }
    }

    let notes = Notes(baseURL: baseURL, tenant: "acme")
    let note = try await api.send(notes.note(id: 7))
    // SYMBOL-SAMPLE-END
    return note
}

@Suite("The typed requests' symbol samples run")
struct TypedSymbolSampleTests {
    @Test("A specification's call, an endpoint enum, value() and the raw response decode over loopback")
    func samples() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/notes/7": .json(#"{"id":7,"text":"tea"}"#)
            case "/users": .json(#"{"error":"taken"}"#, status: 422)
            default: .json(#"{"id":1,"name":"Ada"}"#)
            }
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await typedAPICallSample(api: api, baseURL: server.baseURL).text == "tea")
        #expect(server.requests.last?.header("X-Tenant") == "acme")
        #expect(try await TypedSymbolSamples.endpoint(api: api).name == "Ada")
        #expect(try await TypedSymbolSamples.value(api: api).name == "Ada")
        #expect(try await TypedSymbolSamples.rawResponse(api: api).statusCode == 200)
        #expect(try await TypedSymbolSamples.httpStatus(api: api) == .ok)
        try await TypedSymbolSamples.decodingErrors(api: api, newUser: .init(name: "Ada"))
    }
}
