import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small API: a shared header from the hook, a POST whose body and header come from its input.
private struct NotesAPI: APISpecification {
    var baseURL: URL
    var tenant: String

    func prepare(_ request: SimpleRequest) {
        request.header("X-Tenant", tenant).header("X-Source", "specification")
    }

    struct NewNote: Encodable, Sendable {
        var text: String
        var pinned: Bool
    }

    struct Note: Decodable, Sendable {
        var id: Int
    }

    static let create = APIEndpoint<NotesAPI, NewNote, Note>(.post, "/notes/") { request, input, api in
        request.header("X-Source", "endpoint").body(json: input)
    }

    static let list = APIEndpoint<NotesAPI, Void, [Note]>(.get, "notes")
}

@Suite("Declarative API specifications")
struct APISpecificationTests {
    @Test("An endpoint's request: base path kept, hook first, endpoint last, body from the input")
    func endpointBuildsFromInputAndSpecification() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 9}"#, status: 201) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let notes = NotesAPI(baseURL: server.url("/api/"), tenant: "acme")

        let note = try await api.call(NotesAPI.create, of: notes, with: .init(text: "hi", pinned: true))

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

        _ = try await api.call(NotesAPI.list, of: NotesAPI(baseURL: own.baseURL, tenant: "a"), with: ())
        _ = try await api.call(NotesAPI.list, of: NotesAPI(baseURL: other.baseURL, tenant: "a"), with: ())

        #expect(own.requests.first?.header("Authorization") == "Bearer secret")
        #expect(other.requests.count == 1)
        #expect(other.requests.first?.header("Authorization") == nil)
    }

    @Test("An endpoint's request takes handlers, and an error status reaches them")
    func requestTakesHandlers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(500) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()

        let request = NotesAPI.list.request(for: (), of: NotesAPI(baseURL: server.baseURL, tenant: "a"))
            .on(error: { error in log.append("status \(error.statusCode ?? 0)") })
        await request.executeAndWait(on: api)

        #expect(log.all == ["status 500"])
        #expect(server.requests.map(\.path) == ["/notes"])
    }
}
