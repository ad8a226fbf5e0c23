import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A main-actor view model, as an app has: the handlers below mutate it directly, which compiles only because they are
/// `@MainActor` (issue 33, item 2).
@MainActor private final class CatsModel {
    var names: [String] = []
    var steps: [String] = []
    var failure: SimpleNetworkingError?
    var progress: [TransferProgress.Direction] = []

    func load(_ request: SimpleRequest) {
        request
            .on(httpStatus: 200) { _, _ in
                // A plain handler of the same request runs in the same main-actor job, in order.
                MainActor.assumeIsolated { self.steps.append("status") }
                return true
            }
            .onMainActor(success: { response in
                self.names = (try? response.decode([String].self)) ?? []
                self.steps.append("success")
            })
            .onMainActor(error: { error in self.failure = error })
            .onMainActor(completion: { self.steps.append("completion") })
            .execute()
    }
}

/// A main-actor feed, as an app showing a live stream has.
@MainActor private final class FeedModel {
    var lines: [String] = []

    func follow(_ request: SimpleRequest, on api: SimpleNetworking) {
        request
            .onMainActor(open: { response in self.lines.append("open \(response.statusCode)") })
            .onMainActor(event: { event in self.lines.append(event.data) })
            .onMainActor(close: { reason in
                self.lines.append(reason == nil ? "close" : "close: \(String(describing: reason))")
            })
            .onMainActor(completion: { self.lines.append("done") })
            .execute(on: api)
    }
}

@Suite("Handlers on the main actor")
struct MainActorHandlerTests {
    @Test("An event stream's open, event, close and completion handlers run on the main actor, in order")
    @MainActor func eventStreamHandlers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.lastEventID == nil
                ? .eventStream([.retry(milliseconds: 10), .event(data: "a", id: "1"), .event(data: "b", id: "2")])
                : .status(204)
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let model = FeedModel()

        model.follow(api.get("/feed"), on: api)

        #expect(await eventually { model.lines.last == "done" })
        #expect(model.lines == ["open 200", "a", "b", "close", "done"])
    }

    @Test(
        "onMainActor handlers mutate main-actor state, in order with the request's other handlers, on a background client"
    )
    @MainActor func mutatesMainActorState() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"["Tom", "Felix"]"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let model = CatsModel()

        model.load(api.get("/cats"))

        #expect(await eventually { model.steps == ["status", "success", "completion"] })
        #expect(model.names == ["Tom", "Felix"])
        #expect(model.failure == nil)
    }

    @Test("An error reaches onMainActor(error:) with the response, and the status handler on the main actor stops it")
    func errorsAndStatusHandlers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.path == "/teapot" ? .status(418) : .status(500) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let seen = Locked<[String]>([])

        api.get("/broken")
            .onMainActor(error: { error, response in
                MainActor.assertIsolated()
                seen.withLock { $0.append("error \(response?.statusCode ?? 0)") }
            })
            .execute()
        api.get("/teapot")
            .onMainActor(httpStatus: 418) { _, response in
                MainActor.assertIsolated()
                seen.withLock { $0.append("status \(response.statusCode)") }
                return false
            }
            .on(error: { _ in seen.withLock { $0.append("not stopped") } })
            .execute()

        #expect(await eventually { seen.current.sorted() == ["error 500", "status 418"] })
    }

    @Test(
        "onMainActor(progress:) gets upload and download values on the main actor; the per-direction forms get one each"
    )
    func progressDirections() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let download = patternedBytes(256 * 1024, seed: 3)
        server.route { _ in .init(status: 200, body: download) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let upload = patternedBytes(256 * 1024, seed: 4)
        let (all, uploads, downloads) = (
            Locked<[TransferProgress]>([]), Locked<[TransferProgress]>([]), Locked<[TransferProgress]>([])
        )

        _ = try await api.post("/echo").body(upload)
            .onMainActor(progress: { value in
                MainActor.assertIsolated()
                all.withLock { $0.append(value) }
            })
            .uploadProgress { value in uploads.withLock { $0.append(value) } }
            .downloadProgress { value in downloads.withLock { $0.append(value) } }
            .response()

        #expect(await eventually { all.current.contains { $0.direction == .download && $0.fractionCompleted == 1 } })
        #expect(Set(all.current.map(\.direction)) == [.upload, .download])
        #expect(await eventually { uploads.current.last?.bytesCompleted == Int64(upload.count) })
        #expect(uploads.current.allSatisfy { $0.direction == .upload })
        #expect(await eventually { downloads.current.last?.bytesCompleted == Int64(download.count) })
        #expect(downloads.current.allSatisfy { $0.direction == .download })
    }
}
