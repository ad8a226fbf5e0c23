import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small API: shared headers from one helper, a POST whose body and header come from its input.
private struct NotesAPI: Sendable {
    var baseURL: URL
    var tenant: String

    struct NewNote: Encodable, Sendable {
        var text: String
        var pinned: Bool
    }

    struct Note: Decodable, Sendable {
        var id: Int
    }

    struct Problem: Decodable, Sendable {
        var error: String
    }

    /// The shared parameters every call of this API gets.
    private func call<Response>(_ call: APICall<Response>) -> APICall<Response> {
        var call = call
        call.baseURL = baseURL
        call.headers["X-Tenant"] = tenant
        if call.headers["X-Source"] == nil { call.headers["X-Source"] = "specification" }
        return call.decodingErrors(Problem.self)
    }

    func create(_ note: NewNote) -> APICall<Note> {
        call(APICall(.post, "/notes/", headers: ["X-Source": "endpoint"], body: note))
    }

    func list(limit: Int? = nil) -> APICall<[Note]> {
        call(APICall(.get, "notes", query: ["limit": limit?.description]))
    }
}

@Suite("Declarative API specifications")
struct DeclarativeSpecificationTests {
    @Test("A call's request: base path kept, shared parameters, the call's own header wins, body from the input")
    func callBuildsFromInputAndSpecification() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 9}"#, status: 201) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let notes = NotesAPI(baseURL: server.url("/api/"), tenant: "acme")

        let note = try await api.send(notes.create(.init(text: "hi", pinned: true)))

        #expect(note.id == 9)
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/api/notes/")
        #expect(request.header("X-Tenant") == "acme")
        #expect(request.header("X-Source") == "endpoint")
        #expect(
            request.bodyText == #"{"pinned":true,"text":"hi"}"# || request.bodyText == #"{"text":"hi","pinned":true}"#)
    }

    @Test("The client's default headers go only to the specification's URL when it has the client's origin")
    func defaultHeadersStayWithTheClientsOrigin() async throws {
        let own = try MockServer()
        let other = try MockServer()
        defer { own.shutdown(); other.shutdown() }
        own.route { _ in .json("[]") }
        other.route { _ in .json("[]") }
        let api = makeLoopbackClient(own) { $0.defaultHeaders = ["Authorization": "Bearer secret"] }
        defer { api.close() }

        _ = try await api.send(NotesAPI(baseURL: own.baseURL, tenant: "a").list(limit: 2))
        _ = try await api.send(NotesAPI(baseURL: other.baseURL, tenant: "a").list())

        #expect(own.requests.first?.header("Authorization") == "Bearer secret")
        #expect(own.requests.first?.target == "/notes?limit=2")
        #expect(other.requests.count == 1)
        #expect(other.requests.first?.target == "/notes")
        #expect(other.requests.first?.header("X-Source") == "specification")
        #expect(other.requests.first?.header("Authorization") == nil)
    }

    @Test("A call's request takes handlers, and an error status reaches them, its error body typed")
    func requestTakesHandlers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.status(500))
        server.enqueue(.json(#"{"error": "tenant suspended"}"#, status: 403))
        let api = makeLoopbackClient(server) { $0.retryPolicy = .never }
        defer { api.close() }
        let log = EventLog()
        let notes = NotesAPI(baseURL: server.baseURL, tenant: "a")

        for _ in 0..<2 {
            let request = try api.request(for: notes.list())
                .on(error: { error in
                    let problem = error.errorBody(as: NotesAPI.Problem.self)?.error ?? "none"
                    log.append("status \(error.statusCode ?? 0), \(problem)")
                })
                .request
            await request.executeAndWait(on: api)
        }

        #expect(log.all == ["status 500, none", "status 403, tenant suspended"])
        #expect(server.requests.map(\.path) == ["/notes", "/notes"])
    }
}
