import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the URLSession transport creates and resumes its tasks: on the caller's thread only while none of the
/// library's transfers is under way, because on Linux a start waits for FoundationNetworking's work queue, which a
/// transfer can keep busy for seconds ("URLSession on Linux" in the documentation). Each test counts in a `TaskStarts`
/// of its own, so the tests running beside it do not move its figures.
@Suite("Where tasks start")
struct TaskStartsTests {
    /// A client over the library's own session, counting in `starts`.
    private static func client(_ server: MockServer, starts: TaskStarts) -> SimpleNetworking {
        let configuration = SimpleNetworking.Configuration()
        let transport = URLSessionTransport(configuration: configuration, taskStarts: starts)
        return SimpleNetworking(baseURL: server.url(), transport: transport, configuration: configuration)
    }

    /// Whether a start now would run on the caller's thread (the start is counted and ended at once).
    private static func wouldStartOnCallersThread(_ starts: TaskStarts) -> Bool {
        defer { starts.end() }
        return starts.begin()
    }

    /// Whether every start and transfer counted in `starts` has ended, soon.
    private static func settles(_ starts: TaskStarts) async -> Bool {
        await eventually { starts.inFlight.transfers == 0 && starts.inFlight.starting == 0 }
    }

    /// Answers `/slow` after 10 s, long enough to be seen in flight on a busy machine, and anything else at once.
    private static func serveSlowAndFast(_ server: MockServer) {
        server.route { request in
            request.path == "/slow" ? MockResponse(body: Data("slow".utf8), faults: [.delayHeaders(10)]) : .text("fast")
        }
    }

    @Test("A start goes to the queue while a transfer is in flight, and to the caller's thread once it completed")
    func startsOnCallersThreadOnlyWhenIdle() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        Self.serveSlowAndFast(server)
        let starts = TaskStarts()
        let api = Self.client(server, starts: starts)
        defer { api.close() }
        #expect(Self.wouldStartOnCallersThread(starts))

        let slow = Task { try await api.get("/slow").response().string }
        #expect(await eventually { starts.inFlight.transfers == 1 })
        #expect(!Self.wouldStartOnCallersThread(starts), "a start beside a transfer in flight ran on the caller's")
        // Started from the queue, beside the slow one; both complete.
        #expect(try await api.get("/fast").response().string == "fast")
        #expect(try await slow.value == "slow")

        #expect(await Self.settles(starts))
        #expect(Self.wouldStartOnCallersThread(starts))
        // Sequential requests each find nothing in flight, and leave nothing behind.
        for _ in 0..<3 { #expect(try await api.get("/fast").response().string == "fast") }
        #expect(await Self.settles(starts))
    }

    @Test("Twenty requests at once all complete, and every start and transfer they counted is ended")
    func concurrentStartsAllEnd() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let starts = TaskStarts()
        let api = Self.client(server, starts: starts)
        defer { api.close() }

        let texts = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<20 { group.addTask { try await api.get("/").response().string } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }

        #expect(texts == Array(repeating: "ok", count: 20))
        #expect(await Self.settles(starts))
    }

    @Test("A transfer stopped by its timeout counts until URLSession completes its cancelled task, then not at all")
    func timedOutTransferIsReleased() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: Data("late".utf8), faults: [.delayHeaders(30)]) }
        let starts = TaskStarts()
        let api = Self.client(server, starts: starts)
        defer { api.close() }

        await #expect(throws: SimpleNetworkingError.self) {
            try await api.get("/").timeout(0.5).retryPolicy(.never).response()
        }

        // The attempt ended at its timeout; its task is cancelled in the background and completes soon after.
        #expect(await Self.settles(starts))
        #expect(Self.wouldStartOnCallersThread(starts))
    }

    @Test("On a session the caller made, a transfer counts until its completion handler runs")
    func callerSessionTransferIsCounted() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        Self.serveSlowAndFast(server)
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let starts = TaskStarts()
        let api = SimpleNetworking(
            baseURL: server.url(), transport: URLSessionTransport(session: session, taskStarts: starts))
        defer { api.close() }

        let slow = Task { try await api.get("/slow").response().string }
        #expect(await eventually { starts.inFlight.transfers == 1 })
        #expect(!Self.wouldStartOnCallersThread(starts))
        #expect(try await slow.value == "slow")
        #expect(await Self.settles(starts))
    }
}
