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

    @Test("decode(_:) decodes in the same step as decoding(_:): a body that does not decode reaches the error handlers")
    func decodeGoesThroughTheValueStep() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/good" ? .json(#"{"id": 7, "title": "Hello"}"#) : .json(#"{"id": "not a number"}"#)
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()
        func handled(_ path: String) -> SimpleRequest {
            api.get(path)
                .on(success: { _ in log.append("success") })
                .on(error: { error, _ in
                    if case .decodingFailed = error { log.append("decodingFailed") } else { log.append("\(error)") }
                })
        }

        let post = try await handled("/good").decode(Post.self)
        let bad: SimpleNetworkingError?
        do {
            _ = try await handled("/bad").decode(Post.self)
            bad = nil
        } catch {
            bad = error
        }

        #expect(post.id == 7)
        // Before, decode(_:) decoded after the handlers: the success handlers ran for a body that then failed.
        #expect(log.all == ["success", "decodingFailed"])
        guard case .decodingFailed? = bad else {
            Issue.record("expected decodingFailed, got \(String(describing: bad))")
            return
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

    @Test("transform { try $0.decode(T.self) } compiles as written and decodes with the client's decoder")
    func inferredClosureUsesClientDecoder() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"display_name": "Ada"}"#) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let api = makeLoopbackClient(server) { $0.decoder = decoder }
        defer { api.close() }
        struct Named: Decodable, Sendable {
            var displayName: String
        }

        let value = try await api.get("/named").transform { try $0.decode(Named.self) }.value()
        let decoded = try await api.get("/named").decoding(Named.self).value()
        let response = try await api.get("/named").response()

        #expect(value.displayName == "Ada")
        #expect(decoded.displayName == "Ada")
        #expect(try response.decode(Named.self).displayName == "Ada")
        #expect(throws: SimpleNetworkingError.self) { try response.decode(Named.self, decoder: JSONDecoder()) }
    }

    @Test("A transform step throws the app's own error: handlers and value() get it as transformFailed's underlying")
    func transformThrowsAppError() async throws {
        struct TooOld: Error, Equatable {
            var id: Int
        }
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 1, "title": "Old"}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()
        let check: @Sendable (SimpleResponse) throws -> Post = { response in
            let post = try response.decode(Post.self)
            if post.id < 10 { throw TooOld(id: post.id) }
            return post
        }

        let request = api.get("/posts/1")
            .transform(check)
            .on(success: { _ in log.append("post") })
            .on(error: { error in
                guard case .transformFailed(let underlying as TooOld, let response) = error else {
                    return log.append("other \(error)")
                }
                log.append("too old \(underlying.id) \(response.statusCode)")
            })
            .request
        await request.executeAndWait(on: api)
        #expect(log.all == ["too old 1 200"])

        do {
            _ = try await api.get("/posts/1").transform(check).value()
            Issue.record("value() did not throw")
        } catch .transformFailed(let underlying, _) {
            #expect(underlying as? TooOld == TooOld(id: 1))
        } catch {
            Issue.record("expected transformFailed, got \(error)")
        }
    }
}

/// The API's own error body, for the tests of typed error bodies.
private struct APIError: Decodable, Sendable, Equatable {
    var error: String
}

@Suite("Typed error bodies")
struct ErrorBodyTests {
    @Test("A 422 with {\"error\": ...} reaches the error handlers and the awaiting call typed, with its response")
    func typedErrorBody() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"error": "name is taken"}"#, status: 422) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let log = EventLog()

        let request = api.post("/users")
            .decodingErrors(APIError.self)
            .on(error: { error, response in
                log.append("\(error.errorBody(as: APIError.self)?.error ?? "untyped") \(response?.statusCode ?? 0)")
            })
        await request.executeAndWait(on: api)
        #expect(log.all == ["name is taken 422"])

        do {
            _ = try await api.post("/users").decodingErrors(APIError.self).response()
            Issue.record("a 422 was a success")
        } catch .errorBody(let body as APIError, let response) {
            #expect(body == APIError(error: "name is taken"))
            #expect(response.statusCode == 422)
        } catch {
            Issue.record("expected errorBody, got \(error)")
        }
        let error = await failure(of: api.post("/users").decodingErrors(APIError.self))
        #expect(error?.errorBody(as: String.self) == nil)
        #expect(error?.statusCode == 422)
        #expect("\(error.map { "\($0)" } ?? "")".contains("name is taken") == false)
    }

    @Test("An error body that does not decode, or none, still gives the plain status error", arguments: ["<html>", ""])
    func undecodableErrorBody(body: String) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text(body, status: 422) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let error = await failure(of: api.get("/users").decodingErrors(APIError.self))
        guard case .unacceptableStatus(let response) = error else {
            Issue.record("expected unacceptableStatus, got \(String(describing: error))")
            return
        }
        #expect(response.statusCode == 422)
    }

    @Test("Retries and status handlers see the response first; only the final status error is typed")
    func retriesBeforeTypedError() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(MockResponse(status: 503, headers: [("Retry-After", "0")]))
        server.enqueue(.json(#"{"error": "locked"}"#, status: 423))
        let api = makeLoopbackClient(server) {
            $0.retryPolicy = RetryPolicy(maximumAttempts: 2, backoff: Backoff(base: 0))
        }
        defer { api.close() }
        let seen = EventLog()
        let value = api.get("/doc").decodingErrors(APIError.self).decoding(Post.self)
            .on(error: { error in seen.append(error.errorBody(as: APIError.self)?.error ?? "untyped") })
        do {
            _ = try await value.value()
            Issue.record("a 423 was a success")
        } catch {
            #expect(error.errorBody(as: APIError.self) == APIError(error: "locked"))
        }
        #expect(seen.all == ["locked"])
        #expect(server.requestCount == 2)
    }
}
