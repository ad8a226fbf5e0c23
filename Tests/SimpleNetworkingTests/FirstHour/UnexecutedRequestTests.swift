import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A request built with handlers but never executed sends nothing: `execute()` runs a bound request, and a debug build
/// says so when such a request is released unexecuted (issue 33).
@Suite("Requests that are never executed")
struct UnexecutedRequestTests {
    @Test("execute() runs a request on the client whose verb made it")
    func executeOnBoundClient() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"ok": true}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let statuses = Locked<[Int]>([])

        api.get("/bound").on(success: { response in statuses.withLock { $0.append(response.statusCode) } }).execute()

        #expect(await eventually { statuses.current == [200] })
        #expect(server.requests.map(\.path) == ["/bound"])
    }

    @Test("execute() on a request bound to no client fails it through its handlers and sends nothing")
    func executeUnbound() {
        let events = Locked<[String]>([])
        SimpleRequest(method: .get, path: "/nowhere")
            .on(error: { error in events.withLock { $0.append("error: \(error)") } })
            .on(completion: { events.withLock { $0.append("completion") } })
            .execute()
        let seen = events.current
        #expect(seen.count == 2 && seen.first?.contains("not bound to a client") == true, "\(seen)")
        #expect(seen.last == "completion")
    }

    #if DEBUG
        @Test("A debug build reports a request released with handlers it never ran, and only such a request")
        func releasedUnexecutedIsReported() async throws {
            let server = try MockServer()
            defer { server.shutdown() }
            server.route { _ in .status(204) }
            let api = makeLoopbackClient(server)
            defer { api.close() }
            let marker = "/never-executed-\(UUID().uuidString)"
            let reports = Locked<[String]>([])
            let previous = SimpleRequest.neverExecutedReporter.current
            SimpleRequest.neverExecutedReporter.set { message in
                if message.contains(marker) { reports.withLock { $0.append(message) } }
            }
            defer { SimpleRequest.neverExecutedReporter.set(previous) }

            // Built, handlers added, never executed: released at the end of the statement.
            _ = api.get(marker + "/a").on(success: { _ in })
            // No handlers: nothing would have run, nothing to report.
            _ = api.get(marker + "/b")
            // Executed: nothing to report.
            _ = try await api.get(marker + "/c").on(success: { _ in }).response()

            #expect(await eventually { reports.current.count == 1 })
            #expect(reports.current.first?.contains(marker + "/a") == true, "\(reports.current)")
            #expect(reports.current.first?.contains(".execute()") == true)
        }
    #endif
}
