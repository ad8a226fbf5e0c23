import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// The behaviours of event streams over loopback, for one transport: `EventStreamTests` runs them over URLSession, and
/// the AsyncHTTPClient engine's suite over the engine (its test target links this file).
///
/// Waits between connections go through a clock that records them, so reconnection times and backoff are checked
/// as values; wall-clock bounds appear only where the wire is the point (timeouts), loose and scaled by
/// `SIMPLE_NETWORKING_TEST_TIME_SCALE`.
struct EventStreamScenarios: Sendable {
    /// The transport to test; `nil` for the library's URLSession transport.
    let makeTransport: @Sendable (SimpleNetworking.Configuration) -> (any HTTPTransport)?

    /// A client on `server` with automatic retries off unless `configure` turns them on.
    func makeClient(
        _ server: MockServer, configure: (inout SimpleNetworking.Configuration) -> Void = { _ in }
    ) -> EventFeedAPI {
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .never
        configure(&configuration)
        guard let transport = makeTransport(configuration) else {
            return EventFeedAPI(baseURL: server.baseURL, configuration: configuration)
        }
        return EventFeedAPI(baseURL: server.baseURL, transport: transport, configuration: configuration)
    }

    // MARK: - Events

    func deliversEventsInOrder() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .eventStream([
                .comment("welcome"), .event(data: "one", id: "1"), .pause(0.05),
                .event(data: "two\nlines", type: "update"), .raw("data: three\r\n\r\n"),
            ])
        }
        let api = makeClient(server)
        defer { api.close() }
        var events: [ServerSentEvent] = []
        for try await event in api.get("/feed").eventStream(EventStreamOptions(reconnects: false)).events() {
            events.append(event)
        }
        #expect(
            events == [
                ServerSentEvent(id: "1", data: "one"), ServerSentEvent(id: "1", event: "update", data: "two\nlines"),
                ServerSentEvent(id: "1", data: "three"),
            ])
        #expect(server.requests.map { $0.header("Accept") } == ["text/event-stream"])
        #expect(server.requests.first?.lastEventID == nil)
    }

    func decodesJSONUntilTheSentinel() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            guard request.method == "POST", request.bodyText.contains("\"prompt\":\"hi\"") else { return .status(400) }
            return .eventStream(
                [.event(data: #"{"text":"Hel"}"#), .event(data: #"{"text":"lo"}"#), .event(data: "[DONE]")],
                ending: .hold)
        }
        let api = makeClient(server)
        defer { api.close() }
        var text = ""
        for try await token in api.post("/chat").body(json: ChatPrompt(prompt: "hi"))
            .events(decoding: ChatToken.self, until: "[DONE]")
        {
            text += token.text
        }
        #expect(text == "Hello")
        // The sentinel closed the connection the server held open, and a POST does not reconnect.
        #expect(await Self.eventually { server.openConnectionCount == 0 })
        #expect(server.requestCount == 1)
    }

    func dataThatDoesNotDecodeThrows() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .eventStream([.event(data: #"{"text":"ok"}"#), .event(data: "not json")], ending: .hold) }
        let api = makeClient(server)
        defer { api.close() }
        var texts: [String] = []
        let failure = await Self.failure {
            for try await token in api.get("/chat").events(decoding: ChatToken.self) { texts.append(token.text) }
        }
        #expect(texts == ["ok"])
        guard case .decodingFailed(let type, _, let response)? = failure else {
            Issue.record("expected decodingFailed, got \(String(describing: failure))")
            return
        }
        #expect(type == "ChatToken")
        #expect(response?.statusCode == 200)
        #expect(await Self.eventually { server.openConnectionCount == 0 })
    }

    // MARK: - Reconnection

    func reconnectsWithLastEventIDAfterTheRetryTime() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.lastEventID {
            case nil:
                return .eventStream(
                    [.retry(milliseconds: 20), .event(data: "a", id: "1"), .event(data: "b", id: "2")], ending: .drop)
            case "2": return .eventStream([.event(data: "c", id: "3")])
            default: return .status(204)
            }
        }
        let waits = Locked<[TimeInterval]>([])
        let api = makeClient(server) { $0.clock = Self.clock(recordingWaitsIn: waits) }
        defer { api.close() }
        let ids = try await Self.untilNoContent(api.get("/feed").events()).map(\.id)
        #expect(ids == ["1", "2", "3"])
        #expect(server.requests.map(\.lastEventID) == [nil, "2", "3"])
        // The server's retry lasts beyond its connection.
        #expect(waits.current == [0.02, 0.02])
    }

    func anIDThatIsNoHeaderValueIsNotSent() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.sequenceNumber {
            case 0: return .eventStream([.retry(milliseconds: 10), .raw("id: a\u{1}b\ndata: x\n\n")], ending: .drop)
            case 1: return .eventStream([.event(data: "y", id: "2")], ending: .drop)
            default: return .status(204)
            }
        }
        let api = makeClient(server)
        defer { api.close() }
        let events = try await Self.untilNoContent(api.get("/feed").events())
        // The event keeps its ID; the reconnection goes without it rather than fail, and the next ID is sent.
        #expect(events.map(\.id) == ["a\u{1}b", "2"])
        #expect(server.requests.map(\.lastEventID) == [nil, nil, "2"])
    }

    func aPostReconnectsOnlyWhenAsked() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.lastEventID == nil ? .eventStream([.event(data: "a", id: "7")]) : .status(204)
        }
        let waits = Locked<[TimeInterval]>([])
        let api = makeClient(server) { $0.clock = Self.clock(recordingWaitsIn: waits) }
        defer { api.close() }
        var first: [String] = []
        for try await event in api.post("/jobs").body(json: ChatPrompt(prompt: "x")).events() {
            first.append(event.data)
        }
        #expect(first == ["a"])
        #expect(server.requestCount == 1)
        #expect(waits.current.isEmpty)

        let asked = api.post("/jobs").body(json: ChatPrompt(prompt: "x"))
            .eventStream(EventStreamOptions(reconnects: true, reconnectionTime: 0.01))
        let second = try await Self.untilNoContent(asked.events()).map(\.data)
        #expect(second == ["a"])
        #expect(server.requests.map(\.lastEventID) == [nil, nil, "7"])
        #expect(server.requests.last?.method == "POST")
        #expect(waits.current == [0.01])
    }

    func failedReconnectionsBackOffWithJitterWithinThePolicy() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.sequenceNumber {
            case 0: return .eventStream([.retry(milliseconds: 10), .event(data: "a", id: "1")], ending: .drop)
            case 1, 2: return MockResponse(faults: [.closeWithoutResponse])
            case 3: return .eventStream([.event(data: "b", id: "2")])
            default: return .status(204)
            }
        }
        let waits = Locked<[TimeInterval]>([])
        let api = makeClient(server) { configuration in
            configuration.clock = Self.clock(recordingWaitsIn: waits)
            configuration.random = RandomSource { 0.5 }
            configuration.retryPolicy = RetryPolicy(
                maximumAttempts: 3, backoff: Backoff(base: 0.04, multiplier: 2, cap: 1))
        }
        defer { api.close() }
        let ids = try await Self.untilNoContent(api.get("/feed").events()).map(\.id)
        #expect(ids == ["1", "2"])
        #expect(server.requests.map(\.lastEventID) == [nil, "1", "1", "1", "2"])
        // The retry time, then the policy's backoff with jitter (half of 0.04, half of 0.08), then the retry time.
        #expect(waits.current == [0.01, 0.02, 0.04, 0.01])
    }

    func failedReconnectionsStopAtThePolicyLimit() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.sequenceNumber == 0
                ? .eventStream([.retry(milliseconds: 10), .event(data: "a", id: "1")], ending: .drop)
                : MockResponse(faults: [.closeWithoutResponse])
        }
        let api = makeClient(server) { configuration in
            configuration.retryPolicy = RetryPolicy(maximumAttempts: 2, backoff: Backoff(base: 0.01))
        }
        defer { api.close() }
        var data: [String] = []
        let failure = await Self.failure {
            for try await event in api.get("/feed").events() { data.append(event.data) }
        }
        #expect(data == ["a"])
        #expect(failure?.transportFailure != nil, "\(String(describing: failure))")
        #expect(server.requestCount == 3)
    }

    func reauthenticatesOnA401WhileReconnecting() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let authentications = Locked(0)
        server.route { request in
            if request.path == "/auth" {
                authentications.withLock { $0 += 1 }
                return .json(#"{"token": "two"}"#)
            }
            // The first token is good for the first connection only.
            let valid = request.sequenceNumber == 0 ? "Bearer one" : "Bearer two"
            guard request.header("Authorization") == valid else { return .status(401) }
            switch request.lastEventID {
            case nil: return .eventStream([.retry(milliseconds: 10), .event(data: "a", id: "1")], ending: .drop)
            case "1": return .eventStream([.event(data: "b", id: "2")])
            default: return .status(204)
            }
        }
        let api = makeClient(server) { $0.defaultHeaders = ["Authorization": "Bearer one"] }
        defer { api.close() }
        let data = try await Self.untilNoContent(api.get("/feed").events()).map(\.data)
        #expect(data == ["a", "b"])
        #expect(authentications.current == 1)
        let feed = server.requests.filter { $0.path == "/feed" }
        #expect(feed.map(\.statusHint) == ["Bearer one/-", "Bearer one/1", "Bearer two/1", "Bearer two/2"])
    }

    // MARK: - Stopping

    func stopsOnNoContent() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeClient(server)
        defer { api.close() }
        var count = 0
        let failure = await Self.failure { for try await _ in api.get("/feed").events() { count += 1 } }
        guard case .notAnEventStream(let response)? = failure else {
            Issue.record("expected notAnEventStream, got \(String(describing: failure))")
            return
        }
        #expect(response.statusCode == 204)
        #expect(failure?.description.contains("no more events") == true)
        #expect(count == 0)
        #expect(server.requestCount == 1)
    }

    func stopsOnAStatusOutside2xx() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("down", status: 503) }
        let api = makeClient(server)
        defer { api.close() }
        let failure = await Self.failure { for try await _ in api.get("/feed").events() {} }
        guard case .unacceptableStatus(let response)? = failure else {
            Issue.record("expected unacceptableStatus, got \(String(describing: failure))")
            return
        }
        #expect(response.statusCode == 503)
        #expect(server.requestCount == 1)
    }

    func stopsOnAResponseThatIsNotAnEventStream() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"events": []}"#) }
        let api = makeClient(server)
        defer { api.close() }
        let failure = await Self.failure { for try await _ in api.get("/feed").events() {} }
        guard case .notAnEventStream(let response)? = failure else {
            Issue.record("expected notAnEventStream, got \(String(describing: failure))")
            return
        }
        #expect(response.statusCode == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(failure?.response?.statusCode == 200)
        #expect(server.requestCount == 1)
    }

    // MARK: - Bounds and cancellation

    func leavingTheLoopClosesTheConnection() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .eventStream([.event(data: "a"), .event(data: "b")], ending: .hold) }
        let api = makeClient(server)
        defer { api.close() }
        var data: [String] = []
        for try await event in api.get("/feed").events() {
            data.append(event.data)
            break
        }
        #expect(data == ["a"])
        #expect(await Self.eventually { server.openConnectionCount == 0 })
        #expect(server.requestCount == 1)
    }

    func cancellingTheTaskClosesTheConnection() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .eventStream([.event(data: "a")], ending: .hold) }
        let api = makeClient(server)
        defer { api.close() }
        let received = Locked(false)
        let task = Task { () -> SimpleNetworkingError? in
            await Self.failure {
                for try await _ in api.get("/feed").events() { received.withLock { $0 = true } }
            }
        }
        #expect(await Self.eventually { received.current })
        task.cancel()
        let failure = await task.value
        #expect(Self.isCancelled(failure), "\(String(describing: failure))")
        #expect(await Self.eventually { server.openConnectionCount == 0 })
        #expect(server.requestCount == 1)
    }

    func anEventPastTheMaximumSizeThrows() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .eventStream([.event(data: "small"), .event(data: String(repeating: "x", count: 500))], ending: .hold)
        }
        let api = makeClient(server)
        defer { api.close() }
        var data: [String] = []
        let failure = await Self.failure {
            for try await event in api.get("/feed").eventStream(EventStreamOptions(maximumEventSize: 64)).events() {
                data.append(event.data)
            }
        }
        #expect(data == ["small"])
        guard case .eventTooLarge(let limit)? = failure else {
            Issue.record("expected eventTooLarge, got \(String(describing: failure))")
            return
        }
        #expect(limit == 64)
        #expect(await Self.eventually { server.openConnectionCount == 0 })
        #expect(server.requestCount == 1)
    }

    func theAttemptTimeoutDoesNotEndAHealthyStream() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let gap = 0.25 * Self.timeScale
        let steps = (1...8).flatMap { index -> [MockEvent] in [.pause(gap), .event(data: "\(index)")] }
        server.route { _ in .eventStream(steps) }
        // The stream lasts 8 gaps, longer than the attempt timeout (loose enough for the response to begin on a busy
        // machine); the gaps stay well under the idle timeout.
        let api = makeClient(server) { $0.timeout = 6 * gap }
        defer { api.close() }
        let options = EventStreamOptions(reconnects: false, idleTimeout: 30 * Self.timeScale)
        // The attempt timeout still bounds the wait for the response to begin, which on a busy machine at the start
        // of the suite can take seconds: that run is tried again, up to three runs.
        var outcome: Result<[String], SimpleNetworkingError> = .success([])
        var elapsed: TimeInterval = 0
        for _ in 1...3 {
            var data: [String] = []
            let started = Date()
            let failure = await Self.failure {
                for try await event in api.get("/feed").eventStream(options).events() { data.append(event.data) }
            }
            elapsed = Date().timeIntervalSince(started)
            outcome = failure.map { .failure($0) } ?? .success(data)
            guard let failure, failure.isTimeout, data.isEmpty else { break }
        }
        #expect(try outcome.get() == ["1", "2", "3", "4", "5", "6", "7", "8"])
        #expect(elapsed >= 6 * gap)
    }

    func aSilentConnectionIsClosedAndReconnected() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.lastEventID {
            case nil: return .eventStream([.retry(milliseconds: 10), .event(data: "a", id: "1")], ending: .hold)
            // The server closes these two, so that only the client can have closed the first.
            case "1": return .eventStream([.event(data: "b", id: "2")], headers: [("Connection", "close")])
            default: return MockResponse(status: 204, headers: [("Connection", "close")])
            }
        }
        let api = makeClient(server)
        defer { api.close() }
        let started = Date()
        // Long enough that a busy machine does not take its own delays for silence.
        let idle = 1.0 * Self.timeScale
        let data = try await Self.untilNoContent(
            api.get("/feed").eventStream(EventStreamOptions(idleTimeout: idle)).events()
        ).map(\.data)
        #expect(data == ["a", "b"])
        // A lower bound: the silent connection was not given up early.
        #expect(Date().timeIntervalSince(started) >= idle)
        #expect(server.requests.map(\.lastEventID) == [nil, "1", "2"])
        #expect(await Self.eventually { server.openConnectionCount == 0 })
    }

    func aSilentConnectionFailsWhenNotReconnecting() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .eventStream([.event(data: "a")], ending: .hold) }
        let api = makeClient(server)
        defer { api.close() }
        var data: [String] = []
        let options = EventStreamOptions(reconnects: false, idleTimeout: 1.0 * Self.timeScale)
        let failure = await Self.failure {
            for try await event in api.get("/feed").eventStream(options).events() { data.append(event.data) }
        }
        #expect(data == ["a"])
        guard case .eventStreamIdle(let seconds)? = failure else {
            Issue.record("expected eventStreamIdle, got \(String(describing: failure))")
            return
        }
        #expect(seconds == 1.0 * Self.timeScale)
        #expect(await Self.eventually { server.openConnectionCount == 0 })
    }

    func theRequestTimeoutBoundsTheStartOfTheStream() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            var response = MockResponse.eventStream([.event(data: "late")])
            response.faults = [.delayHeaders(30)]
            return response
        }
        let api = makeClient(server) { $0.timeout = 0.2 }
        defer { api.close() }
        let failure = await Self.failure {
            for try await _ in api.get("/feed").eventStream(EventStreamOptions(reconnects: false)).events() {}
        }
        #expect(failure?.isTimeout == true, "\(String(describing: failure))")
    }

    // MARK: - Handlers

    func handlersSeeEachEventThenTheEnd() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.lastEventID == nil
                ? .eventStream([.retry(milliseconds: 10), .event(data: "a", id: "1"), .event(data: "b", id: "2")])
                : .status(204)
        }
        let api = makeClient(server)
        defer { api.close() }
        let log = Locked<[String]>([])
        let done = Locked(0)
        api.get("/feed")
            .on(event: { event in log.withLock { $0.append(event.data) } })
            .on(error: { error in log.withLock { $0.append(error.response?.statusCode == 204 ? "204" : "error") } })
            .on(completion: { done.withLock { $0 += 1 } })
            .execute(on: api)
        #expect(await Self.eventually { done.current > 0 })
        // The server's 204 stops the stream: the error handlers see it once, at the end.
        #expect(log.current == ["a", "b", "204"])
        #expect(done.current == 1)
        #expect(server.requestCount == 2)
    }

    func cancelStopsAnExecutedStream() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .eventStream([.event(data: "a")], ending: .hold) }
        let api = makeClient(server)
        defer { api.close() }
        let log = Locked<[String]>([])
        let done = Locked(0)
        let request = api.get("/feed")
            .on(event: { event in log.withLock { $0.append(event.data) } })
            .on(error: { error in log.withLock { $0.append(Self.isCancelled(error) ? "cancelled" : "error") } })
            .on(completion: { done.withLock { $0 += 1 } })
            .execute(on: api)
        #expect(await Self.eventually { log.current.contains("a") })
        request.cancel()
        #expect(await Self.eventually { done.current > 0 })
        #expect(log.current == ["a", "cancelled"])
        #expect(await Self.eventually { server.openConnectionCount == 0 })
        #expect(server.requestCount == 1)
    }

    // MARK: - Support

    /// 1 normally; larger under `SIMPLE_NETWORKING_TEST_TIME_SCALE` (the ThreadSanitizer run).
    static let timeScale: Double = {
        let value = ProcessInfo.processInfo.environment["SIMPLE_NETWORKING_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1
        return max(1, value)
    }()

    /// Polls `condition` until it holds or a loose, scaled bound passes.
    static func eventually(timeout: TimeInterval = 30, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout * timeScale)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return condition()
    }

    /// The system clock, recording each wait.
    static func clock(recordingWaitsIn waits: Locked<[TimeInterval]>) -> SimpleClock {
        SimpleClock(
            now: SimpleClock.system.now,
            sleep: { seconds in
                waits.withLock { $0.append(seconds) }
                try await SimpleClock.system.sleep(seconds)
            })
    }

    /// Whether `error` is ``SimpleNetworkingError/cancelled``.
    static func isCancelled(_ error: SimpleNetworkingError?) -> Bool {
        if case .cancelled? = error { return true }
        return false
    }

    /// The error `body` throws, or `nil`.
    /// The events of `stream` until the server's 204 No Content stops it, the end these servers give: a stream that
    /// ends otherwise, or fails with another error, fails the test.
    static func untilNoContent(_ stream: EventStream) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        do throws(SimpleNetworkingError) {
            for try await event in stream { events.append(event) }
        } catch {
            guard case .notAnEventStream(let response) = error, response.statusCode == 204 else { throw error }
            return events
        }
        Issue.record("the stream ended without the server's 204")
        return events
    }

    static func failure(_ body: () async throws -> Void) async -> SimpleNetworkingError? {
        do {
            try await body()
            return nil
        } catch let error as SimpleNetworkingError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }
}

/// A client that re-authenticates on 401, as ``SimpleNetworking/reauthenticate(_:on:)`` describes.
final class EventFeedAPI: SimpleNetworking, @unchecked Sendable {
    override func authenticate() async throws {
        let response = try await get("/auth").accept(.json).response()
        defaultHeaders["Authorization"] = "Bearer \(response.json?["token"] as? String ?? "")"
    }

    override func execute(request: SimpleRequest) {
        reauthenticate(request, on: 401)
        super.execute(request: request)
    }
}

/// A streamed chat's question.
struct ChatPrompt: Codable, Sendable {
    var prompt: String
}

/// A streamed chat's piece of answer.
struct ChatToken: Codable, Sendable {
    var text: String
}

extension RecordedRequest {
    /// "Authorization/Last-Event-ID", `-` for none.
    fileprivate var statusHint: String {
        "\(header("Authorization") ?? "-")/\(lastEventID ?? "-")"
    }
}

/// Every event-stream behaviour, one case per scenario: each transport's suite runs them all, so that a scenario added
/// here runs on every transport.
enum EventStreamScenario: CaseIterable, Sendable, CustomTestStringConvertible {
    case deliversEventsInOrder
    case decodesJSONUntilTheSentinel
    case dataThatDoesNotDecodeThrows
    case reconnectsWithLastEventIDAfterTheRetryTime
    case anIDThatIsNoHeaderValueIsNotSent
    case aPostReconnectsOnlyWhenAsked
    case failedReconnectionsBackOffWithJitterWithinThePolicy
    case failedReconnectionsStopAtThePolicyLimit
    case reauthenticatesOnA401WhileReconnecting
    case stopsOnNoContent
    case stopsOnAStatusOutside2xx
    case stopsOnAResponseThatIsNotAnEventStream
    case leavingTheLoopClosesTheConnection
    case cancellingTheTaskClosesTheConnection
    case anEventPastTheMaximumSizeThrows
    case theAttemptTimeoutDoesNotEndAHealthyStream
    case aSilentConnectionIsClosedAndReconnected
    case aSilentConnectionFailsWhenNotReconnecting
    case theRequestTimeoutBoundsTheStartOfTheStream
    case handlersSeeEachEventThenTheEnd
    case cancelStopsAnExecutedStream

    /// What the scenario shows, as the test's name.
    var testDescription: String {
        switch self {
        case .deliversEventsInOrder:
            "Events arrive in order, with ids, types and multi-line data; the request accepts them"
        case .decodesJSONUntilTheSentinel:
            "A POST with a JSON body decodes each event with the client's decoder and ends on [DONE], closing it"
        case .dataThatDoesNotDecodeThrows:
            "Data that does not decode throws decodingFailed with the response and closes the connection"
        case .reconnectsWithLastEventIDAfterTheRetryTime:
            "A dropped or ended GET stream reconnects after the server's retry time with Last-Event-ID, until a 204"
        case .anIDThatIsNoHeaderValueIsNotSent:
            "An event ID that is no valid header value is not sent as Last-Event-ID, and the stream goes on"
        case .aPostReconnectsOnlyWhenAsked:
            "A POST stream does not reconnect unless its options ask, then waits the default reconnection time"
        case .failedReconnectionsBackOffWithJitterWithinThePolicy:
            "Failed reconnections back off with the policy's jittered backoff from the client's clock and random source"
        case .failedReconnectionsStopAtThePolicyLimit:
            "Reconnections that keep failing stop at the policy's attempt limit with the transport failure"
        case .reauthenticatesOnA401WhileReconnecting:
            "A 401 while reconnecting re-authenticates once through execute(request:) and resumes from Last-Event-ID"
        case .stopsOnNoContent: "A 204 stops the stream with notAnEventStream, which carries it, and does not reconnect"
        case .stopsOnAStatusOutside2xx:
            "A status outside 2xx stops the stream with unacceptableStatus and no reconnection"
        case .stopsOnAResponseThatIsNotAnEventStream:
            "A 2xx that is not text/event-stream stops the stream with notAnEventStream carrying the response"
        case .leavingTheLoopClosesTheConnection: "Leaving the loop closes the connection: the server sees it closed"
        case .cancellingTheTaskClosesTheConnection:
            "Cancelling the reading task throws cancelled and closes the connection"
        case .anEventPastTheMaximumSizeThrows:
            "An event past the maximum size throws eventTooLarge after the events before it and closes the connection"
        case .theAttemptTimeoutDoesNotEndAHealthyStream: "A stream that outlasts the attempt timeout is not ended by it"
        case .aSilentConnectionIsClosedAndReconnected:
            "A connection silent for the idle timeout is closed and the stream reconnects with Last-Event-ID"
        case .aSilentConnectionFailsWhenNotReconnecting:
            "A silent connection of a stream that does not reconnect fails with eventStreamIdle"
        case .theRequestTimeoutBoundsTheStartOfTheStream:
            "The request timeout still bounds the wait for the response to begin"
        case .handlersSeeEachEventThenTheEnd:
            "on(event:) handlers see each event across reconnections, then the completion handlers run once"
        case .cancelStopsAnExecutedStream:
            "cancel() stops an executed stream: error handlers get cancelled, completion runs once"
        }
    }
}

extension EventStreamScenarios {
    /// Runs `scenario`.
    func run(_ scenario: EventStreamScenario) async throws {
        switch scenario {
        case .deliversEventsInOrder: try await deliversEventsInOrder()
        case .decodesJSONUntilTheSentinel: try await decodesJSONUntilTheSentinel()
        case .dataThatDoesNotDecodeThrows: try await dataThatDoesNotDecodeThrows()
        case .reconnectsWithLastEventIDAfterTheRetryTime: try await reconnectsWithLastEventIDAfterTheRetryTime()
        case .anIDThatIsNoHeaderValueIsNotSent: try await anIDThatIsNoHeaderValueIsNotSent()
        case .aPostReconnectsOnlyWhenAsked: try await aPostReconnectsOnlyWhenAsked()
        case .failedReconnectionsBackOffWithJitterWithinThePolicy:
            try await failedReconnectionsBackOffWithJitterWithinThePolicy()
        case .failedReconnectionsStopAtThePolicyLimit: try await failedReconnectionsStopAtThePolicyLimit()
        case .reauthenticatesOnA401WhileReconnecting: try await reauthenticatesOnA401WhileReconnecting()
        case .stopsOnNoContent: try await stopsOnNoContent()
        case .stopsOnAStatusOutside2xx: try await stopsOnAStatusOutside2xx()
        case .stopsOnAResponseThatIsNotAnEventStream: try await stopsOnAResponseThatIsNotAnEventStream()
        case .leavingTheLoopClosesTheConnection: try await leavingTheLoopClosesTheConnection()
        case .cancellingTheTaskClosesTheConnection: try await cancellingTheTaskClosesTheConnection()
        case .anEventPastTheMaximumSizeThrows: try await anEventPastTheMaximumSizeThrows()
        case .theAttemptTimeoutDoesNotEndAHealthyStream: try await theAttemptTimeoutDoesNotEndAHealthyStream()
        case .aSilentConnectionIsClosedAndReconnected: try await aSilentConnectionIsClosedAndReconnected()
        case .aSilentConnectionFailsWhenNotReconnecting: try await aSilentConnectionFailsWhenNotReconnecting()
        case .theRequestTimeoutBoundsTheStartOfTheStream: try await theRequestTimeoutBoundsTheStartOfTheStream()
        case .handlersSeeEachEventThenTheEnd: try await handlersSeeEachEventThenTheEnd()
        case .cancelStopsAnExecutedStream: try await cancelStopsAnExecutedStream()
        }
    }
}
