import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// The client's HTTP cache over loopback (URLSession): what is stored, served, revalidated and invalidated, and how a
/// response says where it came from. Time moves on a ``TestClock``.
@Suite("HTTP cache in the pipeline")
struct CacheStageTests {
    /// A client over loopback with an in-memory cache, its time on `clock`, every event in `events`.
    private func client(
        _ server: MockServer, clock: TestClock, events: Locked<[String]>? = nil, cache: HTTPCache? = nil
    ) -> SimpleNetworking {
        makeLoopbackClient(server) { configuration in
            configuration.cache = cache ?? .memory(maximumBytes: 1 << 20)
            configuration.clock = clock.simpleClock
            if let events { configuration.eventHandler = { event in events.withLock { $0.append("\(event.kind)") } } }
        }
    }

    @Test("A fresh stored response answers without the server, with its Age, and says it came from the cache")
    func freshHit() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"n": 1}"#, headers: [("Cache-Control", "max-age=60")]) }
        let clock = TestClock()
        let events = Locked<[String]>([])
        let api = client(server, clock: clock, events: events)
        defer { api.close() }

        let first = try await api.get("/cats").response()
        clock.advance(by: 7)
        let second = try await api.get("/cats").response()

        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(second.body == first.body)
        #expect(second.statusCode == 200)
        #expect(second.headers["Age"] == "7")
        #expect(second.attempts.last?.source == .cache)
        #expect(server.requestCount == 1)
        #expect(events.current.contains("cacheAnswered(source: cache, statusCode: 200)"), "\(events.current)")
    }

    @Test("The cache reports a response it stores, before the attempt ends, and nothing for one it may not store")
    func storedEvent() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/kept"
                ? .text("kept", headers: [("Cache-Control", "max-age=60")])
                : .text("not kept", headers: [("Cache-Control", "no-store")])
        }
        let clock = TestClock()
        let events = Locked<[String]>([])
        let api = client(server, clock: clock, events: events)
        defer { api.close() }

        _ = try await api.get("/kept").response()
        let kept = events.current.filter { $0.hasPrefix("cache") || $0.hasPrefix("attemptFinished") }
        events.withLock { $0 = [] }
        _ = try await api.get("/kept").response()
        let answered = events.current.filter { $0.hasPrefix("cache") }
        events.withLock { $0 = [] }
        _ = try await api.get("/other").response()
        let refused = events.current.filter { $0.hasPrefix("cache") }

        #expect(kept.count == 2)
        #expect(kept.first == "cacheStored(statusCode: 200)", "\(kept)")
        #expect(kept.last?.hasPrefix("attemptFinished") == true, "\(kept)")
        #expect(answered == ["cacheAnswered(source: cache, statusCode: 200)"])
        #expect(refused.isEmpty, "\(refused)")
    }

    @Test("A stale response is revalidated with If-None-Match; a 304 answers with the stored body and merged fields")
    func revalidation() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.header("If-None-Match") == #""v1""# {
                return MockResponse(status: 304, headers: [("ETag", #""v1""#), ("X-Checked", "yes")])
            }
            return .json(#"{"n": 1}"#, headers: [("ETag", #""v1""#), ("Cache-Control", "max-age=10")])
        }
        let clock = TestClock()
        let api = client(server, clock: clock)
        defer { api.close() }

        let first = try await api.get("/cats").response()
        clock.advance(by: 30)
        let second = try await api.get("/cats").response()
        let third = try await api.get("/cats").response()

        #expect(second.source == .revalidated)
        #expect(second.statusCode == 200)
        #expect(second.body == first.body)
        #expect(second.headers["X-Checked"] == "yes")
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, #""v1""#])
        // The 304 made the stored response fresh again.
        #expect(third.source == .cache)
        #expect(third.headers["X-Checked"] == "yes")
    }

    @Test("Vary keeps a variant per value of the nominated field")
    func varyVariants() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            .text(
                request.header("Accept-Language") ?? "none",
                headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        }
        let api = client(server, clock: TestClock())
        defer { api.close() }

        let english = try await api.get("/greeting").header("Accept-Language", "en").response()
        let french = try await api.get("/greeting").header("Accept-Language", "fr").response()
        let englishAgain = try await api.get("/greeting").header("Accept-Language", "en").response()
        let frenchAgain = try await api.get("/greeting").header("Accept-Language", "fr").response()

        #expect([english.string, french.string, englishAgain.string, frenchAgain.string] == ["en", "fr", "en", "fr"])
        #expect([englishAgain.source, frenchAgain.source] == [.cache, .cache])
        #expect(server.requestCount == 2)
    }

    @Test("A successful POST to a URL removes what is stored for it, and for its same-origin Location")
    func invalidation() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.method == "POST"
                ? MockResponse(status: 201, headers: [("Location", "/cats/2")])
                : .json(#"{"path": "\#(request.path)"}"#, headers: [("Cache-Control", "max-age=60")])
        }
        let api = client(server, clock: TestClock())
        defer { api.close() }

        _ = try await api.get("/cats").response()
        _ = try await api.get("/cats/2").response()
        _ = try await api.post("/cats").body(json: ["name": "Tom"]).response()
        let list = try await api.get("/cats").response()
        let created = try await api.get("/cats/2").response()

        #expect(list.source == .network)
        #expect(created.source == .network)
        #expect(
            server.requests.map { "\($0.method) \($0.path)" } == [
                "GET /cats", "GET /cats/2", "POST /cats", "GET /cats", "GET /cats/2",
            ])
    }

    @Test("Responses that may not be stored are not: no-store, a Vary of *, one that followed a redirect")
    func notStored() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/no-store": return .text("x", headers: [("Cache-Control", "no-store, max-age=60")])
            case "/vary-all": return .text("x", headers: [("Cache-Control", "max-age=60"), ("Vary", "*")])
            case "/moved": return .redirect(to: "/target")
            case "/target": return .text("x", headers: [("Cache-Control", "max-age=60")])
            default: return .status(404)
            }
        }
        let api = client(server, clock: TestClock())
        defer { api.close() }

        for path in ["/no-store", "/vary-all", "/moved"] {
            _ = try await api.get(path).response()
            let again = try await api.get(path).response()
            #expect(again.source == .network, "\(path)")
        }
        // The redirect's response is not stored under the URL that redirected.
        #expect(
            server.requests.map(\.path) == [
                "/no-store", "/no-store", "/vary-all", "/vary-all", "/moved", "/target", "/moved", "/target",
            ])
    }

    @Test("only-if-cached answers 504 from an empty cache without sending, and from storage when it can")
    func onlyIfCached() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("stored", headers: [("Cache-Control", "max-age=60")]) }
        let api = client(server, clock: TestClock())
        defer { api.close() }

        let miss = await failure(of: api.get("/offline").header("Cache-Control", "only-if-cached"))
        _ = try await api.get("/offline").response()
        let hit = try await api.get("/offline").header("Cache-Control", "only-if-cached").response()

        guard case .unacceptableStatus(let response) = miss else {
            Issue.record("expected a 504, got \(String(describing: miss))")
            return
        }
        #expect(response.statusCode == 504)
        #expect(response.source == .cache)
        #expect(hit.source == .cache)
        #expect(server.requestCount == 1)
    }

    @Test("Credentials are part of the stored response's identity: another Authorization goes to the server")
    func authorizationKeysTheVariant() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            .text(request.header("Authorization") ?? "", headers: [("Cache-Control", "private, max-age=60")])
        }
        let api = client(server, clock: TestClock())
        defer { api.close() }

        let ada = try await api.get("/me").header("Authorization", "Bearer ada").response()
        let bob = try await api.get("/me").header("Authorization", "Bearer bob").response()
        let adaAgain = try await api.get("/me").header("Authorization", "Bearer ada").response()

        #expect([ada.string, bob.string, adaAgain.string] == ["Bearer ada", "Bearer bob", "Bearer ada"])
        #expect([ada.source, bob.source, adaAgain.source] == [.network, .network, .cache])
    }

    @Test("stale-if-error serves the stale response when the server answers 503, within its window")
    func staleIfError() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.sequenceNumber == 0
                ? .text("good", headers: [("Cache-Control", "max-age=10, stale-if-error=60")])
                : .status(503)
        }
        let clock = TestClock()
        let api = client(server, clock: clock)
        defer { api.close() }

        _ = try await api.get("/status").response()
        clock.advance(by: 30)
        let stale = try await api.get("/status").response()
        clock.advance(by: 60)
        let tooLate = await failure(of: api.get("/status"))

        #expect(stale.string == "good")
        #expect(stale.source == .cache)
        #expect(stale.headers["Age"] == "30")
        guard case .unacceptableStatus(let response) = tooLate else {
            Issue.record("expected the 503, got \(String(describing: tooLate))")
            return
        }
        #expect(response.statusCode == 503)
    }

    @Test("stale-while-revalidate answers with the stale response at once and revalidates it in the background")
    func staleWhileRevalidate() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.header("If-None-Match") == #""r1""# {
                return MockResponse(status: 304, headers: [("ETag", #""r1""#), ("Cache-Control", "max-age=100")])
            }
            return .text(
                "feed", headers: [("ETag", #""r1""#), ("Cache-Control", "max-age=1, stale-while-revalidate=60")])
        }
        let clock = TestClock()
        let events = Locked<[String]>([])
        let api = client(server, clock: clock, events: events)
        defer { api.close() }

        _ = try await api.get("/feed").response()
        clock.advance(by: 5)
        let stale = try await api.get("/feed").response()
        // The background 304 is merged, and announced, after the stale answer.
        #expect(await eventually { events.current.contains("cacheAnswered(source: revalidated, statusCode: 200)") })
        // It made the response fresh for 100 s: the next request is answered from storage.
        let fresh = try await api.get("/feed").response()

        #expect(stale.source == .cache)
        #expect(stale.headers["Age"] == "5")
        #expect(server.requests.last?.header("If-None-Match") == #""r1""#)
        #expect(fresh.source == .cache)
        #expect(fresh.headers["Cache-Control"] == "max-age=100")
        #expect(server.requestCount == 2)
        #expect(fresh.attempts.last.map { "\($0)" }?.hasSuffix("200 from the cache") == true)
    }

    @Test("A disk cache answers a new client after the first one is gone, and removeAll() empties it")
    func diskCacheOutlivesItsClient() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("kept", headers: [("Cache-Control", "max-age=600")]) }
        let folder = try ScratchDirectory()
        let clock = TestClock()

        let first = client(server, clock: clock, cache: .disk(at: folder.url, maximumBytes: 1 << 20))
        _ = try await first.get("/file").response()
        first.close()
        let cache = HTTPCache.disk(at: folder.url, maximumBytes: 1 << 20)
        let second = client(server, clock: clock, cache: cache)
        defer { second.close() }
        let fromDisk = try await second.get("/file").response()
        #expect(cache.storedBytes > 0)
        cache.removeAll()
        let afterClearing = try await second.get("/file").response()

        #expect(fromDisk.source == .cache)
        #expect(fromDisk.string == "kept")
        #expect(afterClearing.source == .network)
        #expect(server.requestCount == 2)
    }

    @Test("Downloads and requests with conditions of their own bypass the cache")
    func bypass() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("data", headers: [("Cache-Control", "max-age=60"), ("ETag", #""d""#)]) }
        let api = client(server, clock: TestClock())
        defer { api.close() }
        let folder = try ScratchDirectory()

        _ = try await api.get("/data").download(to: folder.file("a"))
        _ = try await api.get("/data").download(to: folder.file("b"))
        _ = try await api.get("/data").header("If-None-Match", #""other""#).response()
        _ = try await api.get("/data").header("If-None-Match", #""other""#).response()

        #expect(server.requestCount == 4)
    }
}
