import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Records whether each decoding ran on the main thread.
private let decodedOnMainThread = Locked<[String: [Bool]]>([:])

/// A value whose decoding records the thread it ran on, under the `label` the body carries.
private struct ThreadProbe: Decodable, Sendable {
    var label: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        label = try container.decode(String.self, forKey: .label)
        let onMain = Thread.isMainThread
        decodedOnMainThread.withLock { $0[label, default: []].append(onMain) }
    }

    enum CodingKeys: String, CodingKey { case label }
}

private struct TransformUser: Decodable, Sendable {
    var id: Int
    var name: String
}

private struct Post: Decodable, Sendable, Equatable {
    var id: Int
    var title: String
}

@Suite("A transform step with typed results")
struct TransformTests {
    @Test("Success handlers get the decoded value, after the response's; completion runs once")
    func decodedValueReachesSuccessHandlers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 7, "title": "Hello"}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()

        let request = api.get("/posts/7")
            .on(success: { response in log.append("response \(response.statusCode)") })
            .decoding(Post.self)
            .on(success: { post in log.append("post \(post.id) \(post.title)") })
            .on(error: { error in log.append("error \(error)") })
            .request
        await request.executeAndWait(on: api)

        #expect(log.all == ["response 200", "post 7 Hello"])
    }

    @Test("An error thrown by the transform reaches the error handlers, with the response; no success handler runs")
    func thrownErrorReachesErrorHandlers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": "not a number"}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()

        let request = api.get("/posts/7")
            .on(success: { _ in log.append("response") })
            .transform { response throws(SimpleNetworkingError) in try response.decode(Post.self) }
            .on(success: { _ in log.append("post") })
            .request
            .on(error: { error, response in
                guard case .decodingFailed = error else { return log.append("other error") }
                log.append("decodingFailed \(response?.statusCode ?? 0)")
            })
        await request.executeAndWait(on: api)

        #expect(log.all == ["decodingFailed 200"])
        do {
            _ = try await api.get("/posts/7").decoding(Post.self).request.response()
            Issue.record("response() should throw what the transform threw")
        } catch {
            guard case .decodingFailed = error else {
                Issue.record("expected decodingFailed, got \(error)")
                return
            }
        }
    }

    @Test("A transform of our own: its value and its thrown error")
    func customTransform() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.path == "/ok" ? .text("42") : .text("forty-two") }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()

        for path in ["/ok", "/bad"] {
            let request = api.get(path)
                .transform { response throws(SimpleNetworkingError) -> Int in
                    guard let number = Int(response.string ?? "") else {
                        throw .decodingFailed(type: "Int", reason: "not a number", response: response)
                    }
                    return number
                }
                .on(success: { number in log.append("\(number + 1)") })
                .on(error: { error in log.append("error") })
                .on(completion: { log.append("done") })
                .request
            await request.executeAndWait(on: api)
        }

        #expect(log.all == ["43", "done", "error", "done"])
    }

    @Test("value() returns the transformed value of the final response, and throws what the transform threw")
    func asyncValue() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.status(503))
        server.enqueue(.json(#"{"id": 1, "name": "Ada"}"#))
        server.enqueue(.json(#"{"id": "not a number"}"#))
        let api = makeLoopbackClient(server) {
            $0.retryPolicy = RetryPolicy(maximumAttempts: 2, backoff: Backoff(base: 0))
        }
        defer { api.close() }
        let seen = EventLog()
        let user = try await api.get("/users/1").decoding(TransformUser.self)
            .on(success: { seen.append("handler \($0.name)") })
            .value()
        #expect(user.name == "Ada")
        #expect(seen.all == ["handler Ada"])
        await #expect(throws: SimpleNetworkingError.self) {
            try await api.get("/users/2").transform { response throws(SimpleNetworkingError) in
                try response.decode(TransformUser.self)
            }.value()
        }
        #expect(server.requestCount == 3)
    }

    @Test("A non-2xx response skips the transform and goes to the error handlers as before")
    func errorStatusSkipsTransform() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 1, "title": "x"}"#, status: 404) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let transformed = Counter()
        let log = EventLog()

        let request = api.get("/missing")
            .transform { response throws(SimpleNetworkingError) in
                transformed.increment()
                return try response.decode(Post.self)
            }
            .on(error: { error in log.append("status \(error.statusCode ?? 0)") })
            .request
        await request.executeAndWait(on: api)

        #expect(log.all == ["status 404"])
        #expect(transformed.value == 0)
    }

    @Test("A main-actor caller never decodes on the main thread")
    @MainActor
    func decodingStaysOffTheMainThread() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in .json(#"{"label": "\#(request.path.dropFirst())"}"#) }
        let api = makeLoopbackClient(server) { $0.handlerQueue = .mainActor }
        defer { api.close() }
        let decoded = Counter()

        let request = api.get("/main-handlers")
            .decoding(ThreadProbe.self)
            .on(success: { _ in decoded.increment() })
            .request
        await request.executeAndWait(on: api)
        let awaited = try await api.get("/main-awaited").decode(ThreadProbe.self)

        #expect(awaited.label == "main-awaited")
        #expect(decoded.value == 1)
        #expect(decodedOnMainThread.current["main-handlers"] == [false])
        #expect(decodedOnMainThread.current["main-awaited"] == [false])
    }

    @Test("Decoding never runs on the handler queue, where the handlers do run")
    func decodingStaysOffTheHandlerQueue() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"label": "queue"}"#) }
        let queue = DispatchQueue(label: "handlers")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let api = makeLoopbackClient(server) { $0.handlerQueue = .dispatch(queue) }
        defer { api.close() }
        let onQueue = Locked<[String]>([])

        let request = api.get("/queue")
            .transform { response throws(SimpleNetworkingError) in
                let here = DispatchQueue.getSpecific(key: key) == true
                onQueue.withLock { $0.append("transform \(here)") }
                return try response.decode(ThreadProbe.self)
            }
            .on(success: { _ in
                let here = DispatchQueue.getSpecific(key: key) == true
                onQueue.withLock { $0.append("handler \(here)") }
            })
            .request
        await request.executeAndWait(on: api)

        #expect(onQueue.current == ["transform false", "handler true"])
    }
}
