import Foundation
import SimpleNetworking

/// The cache's promises that a one-client table of ``CacheConformance/Case``s cannot hold: what a disk cache keeps
/// across clients and drops when damaged, the byte limit and its least-recently-used eviction, how each answer is
/// reported, and invalidation across origins. Each scenario gets a fresh server and its own clients over the kit's
/// transport, on a ``TestClock``, with `configure` applied last, as for the cases.
extension CacheConformance {
    /// The scenarios, in the order ``runScenarios()`` runs them:
    /// - `diskAcrossClients`: a disk cache answers a new client after the first is gone; `removeAll()` empties it.
    /// - `damagedDiskEntry`: a disk cache whose files were cut short fetches again, stores again, and answers.
    /// - `memoryEviction`, `diskEviction`: past the byte limit the least recently used response goes first; one used
    ///   since it was stored stays.
    /// - `tooLargeNotStored`: a response larger than an eighth of the limit is not stored, in memory or on disk.
    /// - `sourcesReported`: each response's ``SimpleResponse/source``, its last attempt's
    ///   ``RequestAttempt/source``, and an ``EventMonitor``'s events say network, cache, revalidated, and the cache's
    ///   `504` for `only-if-cached`.
    /// - `crossOriginLocationKept`: a `POST` whose `Location` names another origin leaves that origin's response
    ///   stored; one of the same origin removes it.
    public static let scenarioIDs = [
        "diskAcrossClients", "damagedDiskEntry", "memoryEviction", "diskEviction", "tooLargeNotStored",
        "sourcesReported", "crossOriginLocationKept",
    ]

    /// Runs every scenario, one after another.
    /// - Returns: The scenarios that did not hold, by id; empty when the cache keeps every promise over the transport.
    public func runScenarios() async -> [Failure] {
        var failures: [Failure] = []
        for id in Self.scenarioIDs {
            if let message = await runScenario(id) { failures.append(Failure(caseID: id, message: message)) }
        }
        return failures
    }

    /// Runs one scenario by id.
    /// - Parameter id: One of ``scenarioIDs``.
    /// - Returns: What went wrong, or `nil` when the scenario holds.
    public func runScenario(_ id: String) async -> String? {
        let server: MockServer
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-scenario-\(UUID())")
        do {
            server = try MockServer()
        } catch {
            return "MockServer could not start: \(error)"
        }
        defer {
            server.shutdown()
            try? FileManager.default.removeItem(at: folder)
        }
        let scenario = Scenario(server: server, folder: folder, makeTransport: makeTransport, configure: configure)
        do {
            switch id {
            case "diskAcrossClients": try await scenario.diskAcrossClients()
            case "damagedDiskEntry": try await scenario.damagedDiskEntry()
            case "memoryEviction": try await scenario.eviction(in: .memory(maximumBytes: Scenario.limit))
            case "diskEviction": try await scenario.eviction(in: .disk(at: folder, maximumBytes: Scenario.limit))
            case "tooLargeNotStored": try await scenario.tooLargeNotStored()
            case "sourcesReported": try await scenario.sourcesReported()
            case "crossOriginLocationKept": try await scenario.crossOriginLocationKept()
            default: return "no such scenario"
            }
        } catch {
            return error.message
        }
        return nil
    }

    /// A check of a scenario that did not hold.
    struct ScenarioFailure: Error {
        let message: String
    }

    /// One run of a scenario: its server, its scratch folder, and the kit's transport and configuration.
    struct Scenario: Sendable {
        let server: MockServer
        let folder: URL
        let makeTransport: @Sendable (MockServer) -> any HTTPTransport
        let configure: @Sendable (inout SimpleNetworking.Configuration) -> Void
        let clock = TestClock()

        /// The byte limit of the eviction scenarios: 16 responses of 1,000 bytes and their heads do not fit in it.
        static let limit = 16_000

        /// A client over the kit's transport with `cache`, no retries, on the scenario's clock.
        func client(_ cache: HTTPCache, monitor: (any EventMonitor)? = nil) -> SimpleNetworking {
            var configuration = SimpleNetworking.Configuration()
            configuration.cache = cache
            configuration.retryPolicy = .never
            configuration.timeout = 30  // long: the start of a parallel run can hold every task for seconds
            configuration.clock = clock.simpleClock
            if let monitor { configuration.eventMonitors = [monitor] }
            configure(&configuration)
            return SimpleNetworking(
                baseURL: server.baseURL, transport: makeTransport(server), configuration: configuration)
        }

        /// Fails the scenario with `message` unless `condition` holds.
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(ScenarioFailure) {
            if !condition { throw ScenarioFailure(message: message()) }
        }

        /// `GET path` on `client`, checked to come from `source` with `body` when one is given.
        @discardableResult
        func get(
            _ path: String, on client: SimpleNetworking, from source: ResponseSource, body: String? = nil
        ) async throws -> SimpleResponse {
            let response = try await client.get(path).response()
            try expect(response.source == source, "GET \(path): expected from \(source), got \(response.source)")
            if let body {
                try expect(
                    response.string == body, "GET \(path): expected \(body.count) bytes, got \(response.body.count)")
            }
            return response
        }

        func diskAcrossClients() async throws {
            server.route { _ in .text("kept", headers: [("Cache-Control", "max-age=600")]) }
            let first = client(.disk(at: folder, maximumBytes: 1 << 20))
            try await get("/file", on: first, from: .network, body: "kept")
            first.close()

            let cache = HTTPCache.disk(at: folder, maximumBytes: 1 << 20)
            let second = client(cache)
            defer { second.close() }
            try await get("/file", on: second, from: .cache, body: "kept")
            try expect(cache.storedBytes > 0, "the new client's cache counts nothing stored")
            cache.removeAll()
            try expect(cache.storedBytes == 0, "removeAll() left \(cache.storedBytes) bytes")
            try await get("/file", on: second, from: .network, body: "kept")
            try expect(server.requestCount == 2, "expected 2 requests, the server had \(server.requestCount)")
        }

        func damagedDiskEntry() async throws {
            server.route { _ in .text("kept", headers: [("Cache-Control", "max-age=600")]) }
            let first = client(.disk(at: folder, maximumBytes: 1 << 20))
            try await get("/file", on: first, from: .network, body: "kept")
            first.close()
            // Every file the cache wrote, cut to half its length: a crash or a power loss mid-write.
            var damaged = 0
            for file in FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects ?? [] {
                guard let file = file as? URL, let data = try? Data(contentsOf: file) else { continue }
                try data.prefix(data.count / 2).write(to: file)
                damaged += 1
            }
            try expect(damaged > 0, "the first client's disk cache wrote no file")

            let second = client(.disk(at: folder, maximumBytes: 1 << 20))
            defer { second.close() }
            try await get("/file", on: second, from: .network, body: "kept")
            try await get("/file", on: second, from: .cache, body: "kept")
            try expect(server.requestCount == 2, "expected 2 requests, the server had \(server.requestCount)")
        }

        func eviction(in cache: HTTPCache) async throws {
            let body = String(repeating: "x", count: 1_000)
            server.route { _ in .text(body, headers: [("Cache-Control", "max-age=600")]) }
            let api = client(cache)
            defer { api.close() }
            try await get("/0", on: api, from: .network, body: body)
            // Each new response is stored, then /0 is used again: it is never the least recently used.
            for index in 1...30 {
                try await get("/\(index)", on: api, from: .network, body: body)
                try await get("/0", on: api, from: .cache, body: body)
                try expect(
                    cache.storedBytes <= Self.limit,
                    "after /\(index): \(cache.storedBytes) bytes stored, over the limit")
            }
            try await get("/30", on: api, from: .cache, body: body)
            try await get("/1", on: api, from: .network, body: body)
            let zero = server.requests.filter { $0.path == "/0" }.count
            try expect(zero == 1, "/0 reached the server \(zero) times: evicted though recently used")
        }

        func tooLargeNotStored() async throws {
            server.route { request in
                let size = request.path == "/big" ? 5_000 : 100
                return .text(String(repeating: "b", count: size), headers: [("Cache-Control", "max-age=600")])
            }
            for (name, cache) in [
                ("memory", HTTPCache.memory(maximumBytes: Self.limit)),
                ("disk", HTTPCache.disk(at: folder, maximumBytes: Self.limit)),
            ] {
                let api = client(cache)
                defer { api.close() }
                try await get("/big", on: api, from: .network)
                try expect(cache.storedBytes == 0, "\(name): stored \(cache.storedBytes) bytes of a response too large")
                try await get("/big", on: api, from: .network)
                try await get("/small", on: api, from: .network)
                try await get("/small", on: api, from: .cache)
                cache.removeAll()
            }
        }

        func sourcesReported() async throws {
            server.route { request in
                if request.header("If-None-Match") == #""s1""# {
                    return MockResponse(status: 304, headers: [("ETag", #""s1""#)])
                }
                return .text("feed", headers: [("ETag", #""s1""#), ("Cache-Control", "max-age=10")])
            }
            let monitor = KindRecorder()
            let api = client(.memory(maximumBytes: 1 << 20), monitor: monitor)
            defer { api.close() }
            let expected: [(source: ResponseSource, event: String)] = [
                (.network, "cacheStored(statusCode: 200)"),
                (.cache, "cacheAnswered(source: cache, statusCode: 200)"),
                (.revalidated, "cacheAnswered(source: revalidated, statusCode: 200)"),
            ]
            for (index, step) in expected.enumerated() {
                if index == 2 { clock.advance(by: 60) }
                let before = monitor.kinds.count
                let response = try await get("/feed", on: api, from: step.source, body: "feed")
                let attempt = response.attempts.last?.source
                try expect(
                    attempt == step.source, "response \(index + 1): its attempt says \(String(describing: attempt))")
                let events = monitor.kinds.dropFirst(before)
                try expect(events.contains(step.event), "response \(index + 1): the monitor saw \(Array(events))")
            }
            try expect(
                server.requests.last?.header("If-None-Match") == #""s1""#, "the revalidation sent no If-None-Match")

            let before = monitor.kinds.count
            do {
                let response = try await api.get("/never").header("Cache-Control", "only-if-cached").response()
                throw ScenarioFailure(message: "only-if-cached with nothing stored got \(response.statusCode)")
            } catch let error as SimpleNetworkingError {
                let response = error.response
                try expect(response?.statusCode == 504, "only-if-cached with nothing stored: \(error)")
                try expect(
                    response?.source == .cache, "the 504 says it came from \(String(describing: response?.source))")
            }
            let events = monitor.kinds.dropFirst(before)
            try expect(
                events.contains("cacheAnswered(source: cache, statusCode: 504)"),
                "the 504: the monitor saw \(Array(events))")
            try expect(server.requestCount == 2, "expected 2 requests, the server had \(server.requestCount)")
        }

        func crossOriginLocationKept() async throws {
            server.route { request in
                guard request.method == "POST" else {
                    return .text("v\(request.sequenceNumber)", headers: [("Cache-Control", "max-age=600")])
                }
                let location = request.header("X-Location") ?? "/"
                return MockResponse(status: 201, headers: [("Location", location), ("Content-Location", location)])
            }
            let api = client(.memory(maximumBytes: 1 << 20))
            defer { api.close() }
            let other = server.url("/x", host: "localhost")
            func getOther(from source: ResponseSource) async throws {
                let response = try await api.request(.get, url: other).response()
                try expect(response.source == source, "GET \(other): expected from \(source), got \(response.source)")
            }
            try await getOther(from: .network)
            try await getOther(from: .cache)
            // A POST to 127.0.0.1 whose Location and Content-Location name localhost: another origin, left alone.
            _ = try await api.request(.post, url: server.url("/y")).header("X-Location", other.absoluteString)
                .response()
            try await getOther(from: .cache)
            // The same POST to localhost: its Location is of its own origin, and removes what is stored there.
            _ = try await api.request(.post, url: server.url("/y", host: "localhost"))
                .header("X-Location", other.absoluteString).response()
            try await getOther(from: .network)
        }
    }

    /// An event monitor that keeps the kind of every event it receives, as text.
    final class KindRecorder: EventMonitor {
        private let recorded = Locked<[String]>([])

        /// The kinds received so far, in order.
        var kinds: [String] { recorded.current }

        func receive(_ event: NetworkEvent) {
            recorded.withLock { $0.append("\(event.kind)") }
        }
    }
}

extension Error {
    /// A scenario's own message, or the error's description.
    fileprivate var message: String {
        (self as? CacheConformance.ScenarioFailure)?.message ?? "\(self)"
    }
}
