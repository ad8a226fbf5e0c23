import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// Issue 33, "Moving from the libraries the project grew from": the forms Kringle and Crane users write.

private struct Kitten: Codable, Sendable, Equatable {
    var name: String
}

/// A Kringle-style endpoint: every case is a `GET` unless the call site's verb says otherwise.
private enum KittenEndpoint: Endpoint {
    case kitten(name: String)

    typealias Response = Kitten
    var path: String { "/kittens/{name}" }
    var pathValues: [String: String] {
        switch self {
        case .kitten(let name): ["name": name]
        }
    }
}

/// Crane's names: a static `httpMethod` and a static path template.
private struct CreateKitten: Endpoint {
    static let httpMethod: HTTPMethod = .post
    static let pathTemplate = "/owners/{owner}/kittens"
    var owner: String
    var body: Kitten

    var pathValues: [String: String] { ["owner": owner] }
    typealias Response = Kitten
}

/// Both names given: `method` wins over Crane's `httpMethod`.
private struct BothMethods: Endpoint {
    static let method: HTTPMethod = .put
    static let httpMethod: HTTPMethod = .post
    static let pathTemplate = "/both"
}

/// A type that gives no path at all.
private struct NoPath: Endpoint {
    static let httpMethod: HTTPMethod = .delete
}

/// An endpoint whose error bodies decode.
private struct Guarded: Endpoint {
    struct Problem: Decodable, Sendable { var error: String }
    typealias Response = Kitten
    typealias ErrorBody = Problem
    static let pathTemplate = "/guarded"
}

private struct IssuedToken: Decodable, Sendable {
    var token: String
}

@Suite("Forms of the libraries the project grew from (issue 33)")
struct MigrationFormTests {
    @Test("Kringle's verbs take an endpoint: the verb is the method sent, the value is decoded")
    func kringleVerbs() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"name": "Kringle"}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let cat = KittenEndpoint.kitten(name: "Kringle")
        #expect(try await api.get(cat) == Kitten(name: "Kringle"))
        try await api.delete(cat)
        try await api.post(cat)
        try await api.put(cat)
        try await api.patch(cat)
        #expect(try await api.send(cat, method: .delete).name == "Kringle")
        #expect(try await api.send(cat).name == "Kringle")
        #expect(server.requests.map(\.method) == ["GET", "DELETE", "POST", "PUT", "PATCH", "DELETE", "GET"])
        #expect(Set(server.requests.map(\.path)) == ["/kittens/Kringle"])
        // The string forms still build a request.
        _ = try await api.get("/kittens/{name}", path: ["name": "Kringle"]).response()
        #expect(server.requests.last?.path == "/kittens/Kringle")
    }

    @Test("Crane's static httpMethod is sent, not GET, and a static path template is filled")
    func craneStatics() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in .json(String(decoding: request.body, as: UTF8.self), status: 201) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let created = try await api.send(CreateKitten(owner: "a/b", body: Kitten(name: "Mittens")))
        #expect(created == Kitten(name: "Mittens"))
        #expect(server.requests.map(\.method) == ["POST"])
        #expect(server.requests.map(\.path) == ["/owners/a%2Fb/kittens"])
        #expect(CreateKitten.method == .post)
        #expect(CreateKitten(owner: "x", body: Kitten(name: "y")).path == "/owners/{owner}/kittens")
        try await api.send(BothMethods())
        #expect(server.requests.last?.method == "PUT")
    }

    @Test("An endpoint that gives no path fails with invalidURL naming what to write, and nothing is sent")
    func missingPath() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        do {
            try await api.send(NoPath())
            Issue.record("sent an endpoint without a path")
        } catch .invalidURL(let reason) {
            #expect(reason.contains("NoPath gives no path"))
            #expect(reason.contains("static let pathTemplate"))
        }
        #expect(server.requests.isEmpty)
    }

    @Test("response() of an endpoint's request is the raw response, not decoded; decode(_:) reads another type")
    func rawResponseOfEndpoint() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"nickname": "not a Kitten"}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let values = EventLog()
        let request = try api.request(for: KittenEndpoint.kitten(name: "Kringle"))
            .on(success: { kitten in values.append(kitten.name) })
        let response = try await request.response()
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"nickname": "not a Kitten"}"#)
        struct Nick: Decodable { var nickname: String }
        #expect(try await request.decode(Nick.self).nickname == "not a Kitten")
        #expect(values.all.isEmpty)
        // The endpoint's own decoding still runs for value().
        await #expect(throws: SimpleNetworkingError.self) { try await request.value() }
    }

    @Test("response() of an endpoint's request still decodes its error body")
    func rawResponseKeepsErrorBody() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"error": "no cats here"}"#, status: 403) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        do {
            _ = try await api.request(for: Guarded()).response()
            Issue.record("a 403 succeeded")
        } catch .errorBody(let problem as Guarded.Problem, let response) {
            #expect(problem.error == "no cats here" && response.statusCode == 403)
        }
    }

    @Test("An APICall that ignores the base path is one initializer, its response named by returning:")
    func apiCallPhrase() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"token": "t1"}"#) }
        let api = makeLoopbackClient(server.url("/v1"))
        defer { api.close() }
        let call = APICall(.post, "/oauth/token", ignoresBasePath: true, returning: IssuedToken.self)
        #expect(try await api.send(call).token == "t1")
        let withBody = APICall(
            .post, "oauth/token", ignoresBasePath: true, body: ["grant": "x"], returning: IssuedToken.self)
        #expect(try await api.send(withBody).token == "t1")
        let below = APICall(.get, "/me", returning: IssuedToken.self)
        _ = try await api.send(below)
        #expect(server.requests.map(\.path) == ["/oauth/token", "/oauth/token", "/v1/me"])
    }
}
