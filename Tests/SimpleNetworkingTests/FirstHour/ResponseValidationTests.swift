import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Validation of statuses and content types beyond 2xx")
struct ResponseValidationTests {
    private struct Item: Decodable, Sendable {
        var id: Int
    }

    /// A server answering `/status/N` with N, `/html` with HTML, `/json` with JSON (charset given), `/bare` with a
    /// body and no Content-Type, `/empty` with a 204.
    private func makeServer() throws -> MockServer {
        let server = try MockServer()
        server.route { request in
            switch request.path {
            case "/html":
                return MockResponse(headers: [("Content-Type", "text/html; charset=utf-8")], body: Data("<p>".utf8))
            case "/json":
                return MockResponse(
                    headers: [("Content-Type", "application/json; charset=UTF-8")], body: Data(#"{"id": 1}"#.utf8))
            case "/bare": return MockResponse(body: Data("x".utf8))
            case "/empty": return .status(204)
            default: return .json(#"{"id": 1}"#, status: Int(request.path.split(separator: "/").last ?? "") ?? 200)
            }
        }
        return server
    }

    @Test("A 2xx outside validate(statusCode:) reaches the error handlers as unacceptableStatus, not the success ones")
    func statusOutsideTheSet() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()

        await api.get("/status/203").validate(statusCode: [200])
            .on(success: { _ in log.append("success") })
            .on(error: { error, response in log.append("error \(error.caseName) \(response?.statusCode ?? 0)") })
            .executeAndWait(on: api)
        #expect(log.all == ["error unacceptableStatus 203"])

        await #expect(throws: SimpleNetworkingError.self) {
            _ = try await api.get("/status/203").validate(statusCode: 200...202).validate(statusCode: [200])
                .decode(Item.self)
        }
        #expect(try await api.get("/status/201").validate(statusCode: 200...201).decode(Item.self).id == 1)
    }

    @Test("A Content-Type outside validate(contentType:) is unacceptableContentType, and nothing is decoded")
    func contentTypeOutsideTheList() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        do {
            _ = try await api.get("/html").validate(contentType: [.json]).decode(Item.self)
            Issue.record("the HTML response was accepted")
        } catch .unacceptableContentType(let response, let acceptable) {
            #expect(response.statusCode == 200 && acceptable == [.json])
        }
        let error = await failure(of: api.get("/html").validate(contentType: [.json]))
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("Content-Type text/html,") && text.contains("(application/json)"), "\(text)")
        let bare = await failure(of: api.get("/bare").validate(contentType: [.json]))
        #expect(bare.map { "\($0)" }?.contains("no Content-Type") == true, "\(String(describing: bare))")
    }

    @Test(
        "Parameters and case are ignored, wildcards match, and a response without a body passes",
        arguments: [
            ("/json", [MediaType.json]), ("/json", ["APPLICATION/JSON"]), ("/json", ["application/*"]),
            ("/html", [.json, "text/*"]), ("/html", [.any]), ("/empty", [.json]),
        ])
    func accepted(path: String, types: [MediaType]) async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let response = try await api.get(path).validate(contentType: types).response()
        #expect(response.isSuccess)
    }

    @Test("A download that fails validation leaves no file, and the error event keeps the description")
    func downloadAndEvents() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let finished = Locked<[SimpleNetworkingError]>([])
        let api = makeLoopbackClient(server) { configuration in
            configuration.eventHandler = { event in
                if case .finished(_, let error?, _) = event.kind { finished.withLock { $0.append(error) } }
            }
        }
        defer { api.close() }
        let directory = try ScratchDirectory()

        do {
            _ = try await api.get("/html").validate(contentType: [.json]).download(to: directory.file("item.json"))
            Issue.record("the download was accepted")
        } catch {
            #expect(error.caseName == "unacceptableContentType")
            #expect(await eventually { finished.current.count == 1 })
            #expect(finished.current.first.map { "\($0)" } == "\(error)")
        }
        #expect(directory.names.isEmpty, "\(directory.names)")
    }
}
