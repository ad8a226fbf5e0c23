import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// The behaviours of event streams over loopback, for one transport: `EventStreamTests` runs them over URLSession, and
/// the AsyncHTTPClient engine's suite over the engine (its test target links this file).
///
/// Waits between connections go through a virtual clock (``ScenarioClock``) that records them and takes no time, so
/// reconnection times and backoff are checked as values without waiting; wall-clock bounds appear only where the wire
/// is the point (timeouts), loose and scaled by `SIMPLE_NETWORKING_TEST_TIME_SCALE`.
struct EventStreamScenarios: Sendable {
    /// The transport to test; `nil` for the library's URLSession transport.
    let makeTransport: @Sendable (SimpleNetworking.Configuration) -> (any HTTPTransport)?
    /// Whether the transport can pause a transfer (reads with backpressure): the AsyncHTTPClient engine can,
    /// URLSession cannot.
    var transportPauses = false

    /// A client on `server` with automatic retries off and a ``ScenarioClock`` unless `configure` says otherwise.
    func makeClient(
        _ server: MockServer, configure: (inout SimpleNetworking.Configuration) -> Void = { _ in }
    ) -> EventFeedAPI {
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .never
        configuration.clock = ScenarioClock().clock
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

    func decodedEventsKeepTheirTypeAndID() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .eventStream(
                [
                    .event(data: #"{"text":"Hel"}"#, id: "1", type: "delta"), .event(data: #"{"text":"lo"}"#),
                    .event(data: #"{"text":"end"}"#, id: "2", type: "stop"), .event(data: "[DONE]", type: "stop"),
                    .event(data: "not json"),
                ],
                ending: .hold)
        }
        let api = makeClient(server)
        defer { api.close() }
        var events: [DecodedEvent<ChatToken>] = []
        for try await event in api.get("/chat").decodedEvents(of: ChatToken.self, until: "[DONE]") {
            events.append(event)
        }
        #expect(
            events == [
                DecodedEvent(value: ChatToken(text: "Hel"), type: "delta", id: "1"),
                DecodedEvent(value: ChatToken(text: "lo"), type: "message", id: "1"),
                DecodedEvent(value: ChatToken(text: "end"), type: "stop", id: "2"),
            ])
        #expect(await Self.eventually { server.openConnectionCount == 0 })
        // Data that does not decode throws, with the response, as the values-only form does.
        server.route { _ in .eventStream([.event(data: "not json", type: "delta")], ending: .hold) }
        let failure = await Self.failure { for try await _ in api.get("/chat").decodedEvents(of: ChatToken.self) {} }
        guard case .decodingFailed(let type, _, let response)? = failure else {
            Issue.record("expected decodingFailed, got \(String(describing: failure))")
            return
        }
        #expect(type == "ChatToken")
        #expect(response?.statusCode == 200)
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
        let clock = ScenarioClock()
        let api = makeClient(server) { $0.clock = clock.clock }
        defer { api.close() }
        // Every connection counts as healthy here, so that the waits are the retry time alone (the backoff after
        // short connections has scenarios of its own).
        let options = EventStreamOptions(backoff: ReconnectionBackoff(healthyConnectionTime: 0))
        let ids = try await Self.untilNoContent(api.get("/feed").eventStream(options).events()).map(\.id)
        #expect(ids == ["1", "2", "3"])
        #expect(server.requests.map(\.lastEventID) == [nil, "2", "3"])
        // The server's retry lasts beyond its connection.
        #expect(clock.waits == [0.02, 0.02])
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
        let clock = ScenarioClock()
        let api = makeClient(server) { $0.clock = clock.clock }
        defer { api.close() }
        var first: [String] = []
        for try await event in api.post("/jobs").body(json: ChatPrompt(prompt: "x")).events() {
            first.append(event.data)
        }
        #expect(first == ["a"])
        #expect(server.requestCount == 1)
        #expect(clock.waits.isEmpty)

        let asked = api.post("/jobs").body(json: ChatPrompt(prompt: "x"))
            .eventStream(EventStreamOptions(reconnects: true, reconnectionTime: 0.01))
        let second = try await Self.untilNoContent(asked.events()).map(\.data)
        #expect(second == ["a"])
        #expect(server.requests.map(\.lastEventID) == [nil, nil, "7"])
        #expect(server.requests.last?.method == "POST")
        #expect(clock.waits == [0.01])
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
        let clock = ScenarioClock()
        let api = makeClient(server) { configuration in
            configuration.clock = clock.clock
            configuration.random = RandomSource { 0.5 }
            configuration.retryPolicy = RetryPolicy(
                maximumAttempts: 3, backoff: Backoff(base: 0.04, multiplier: 2, cap: 1))
            // Healthy connections, so that the waits between them are the retry time alone.
            configuration.eventStreams = EventStreamOptions(backoff: ReconnectionBackoff(healthyConnectionTime: 0))
        }
        defer { api.close() }
        let ids = try await Self.untilNoContent(api.get("/feed").events()).map(\.id)
        #expect(ids == ["1", "2"])
        #expect(server.requests.map(\.lastEventID) == [nil, "1", "1", "1", "2"])
        // The retry time, then the policy's backoff with jitter (half of 0.04, half of 0.08), then the retry time.
        #expect(clock.waits == [0.01, 0.02, 0.04, 0.01])
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

    // MARK: - Resuming and backing off

    func theCallersLastEventIDIsSentOnTheFirstConnection() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.lastEventID {
            case "41":
                return .eventStream(
                    [.retry(milliseconds: 10), .event(data: "resumed"), .event(data: "b", id: "42")], ending: .drop)
            case "42": return .eventStream([.event(data: "c", id: "43")])
            default: return .status(204)
            }
        }
        let api = makeClient(server)
        defer { api.close() }
        // As an app does after a restart: the ID it saved before.
        let events = try await Self.untilNoContent(api.get("/feed").header("Last-Event-ID", "41").events())
        #expect(events.map(\.data) == ["resumed", "b", "c"])
        // Until the server sets an ID, events carry the one the stream resumed from.
        #expect(events.map(\.id) == ["41", "42", "43"])
        #expect(server.requests.map(\.lastEventID) == ["41", "42", "43"])
    }

    /// A backlog of `total` events, from the one after the request's `Last-Event-ID` on, 100 to a chunk, written as
    /// fast as the connection takes them; then a 204. Without IDs, the events carry their number in their data only,
    /// and the server sends the backlog once, then 204.
    static func backlog(of total: Int, withIDs: Bool = true) -> @Sendable (RecordedRequest) -> MockResponse {
        { request in
            let after = withIDs ? Int(request.lastEventID ?? "") ?? 0 : request.sequenceNumber == 0 ? 0 : total
            guard after < total else { return .status(204) }
            let steps = stride(from: after + 1, through: total, by: 100).map { first -> MockEvent in
                .raw(
                    (first...min(first + 99, total)).map { withIDs ? "id: \($0)\ndata: \($0)\n\n" : "data: \($0)\n\n" }
                        .joined())
            }
            return .eventStream(steps)
        }
    }

    /// Reads `stream` with a reader that pauses every 250 events, so that it falls behind the server; collects the
    /// events' numbers until the stream throws or ends.
    static func readSlowly(
        _ stream: EventStream, into numbers: inout [Int]
    ) async -> SimpleNetworkingError? {
        do throws(SimpleNetworkingError) {
            for try await event in stream {
                numbers.append(Int(event.data) ?? -1)
                if numbers.count % 250 == 0 { try? await Task.sleep(nanoseconds: 2_000_000) }
            }
            return nil
        } catch {
            return error
        }
    }

    func aFastBacklogIsReadWithoutLossOrRepeats() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let total = 20_000
        server.route(Self.backlog(of: total))
        let clock = ScenarioClock()
        let api = makeClient(server) { $0.clock = clock.clock }
        defer { api.close() }
        // A 16 KiB buffer holds about 600 of these events: the server is soon a whole buffer ahead of the reader.
        let options = EventStreamOptions(bufferSize: 16 * 1024)
        var ids: [Int] = []
        let failure = await Self.readSlowly(api.get("/feed").eventStream(options).events(), into: &ids)
        // The server's 204 ended the stream normally.
        guard failure == nil else {
            Issue.record("expected the normal end, got \(String(describing: failure)) after \(ids.count) events")
            return
        }
        // Every event once, in order.
        #expect(ids.count == total)
        #expect(ids == Array(1...total))
        let resumedFrom = server.requests.dropFirst().map { Int($0.lastEventID ?? "") ?? -1 }
        if transportPauses {
            // Backpressure: the connection was read no faster than the reader, and never cut.
            #expect(server.requestCount == 2)
        } else {
            // URLSession cannot pause: each time the reader fell a whole buffer behind, the connection was closed and
            // the stream resumed at once from the last event it had delivered.
            #expect(server.requestCount > 2)
            #expect(resumedFrom == resumedFrom.sorted() && Set(resumedFrom).count == resumedFrom.count)
        }
        #expect(resumedFrom.last == total)
        // The catch-up reconnections do not wait; only the end of the backlog's last connection waits the retry time.
        #expect(clock.waits.allSatisfy { $0 == 3 } && clock.waits.count <= 1, "\(clock.waits)")
    }

    func aBacklogOnAStreamThatDoesNotReconnect() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let total = 20_000
        server.route(Self.backlog(of: total))
        let api = makeClient(server)
        defer { api.close() }
        let options = EventStreamOptions(reconnects: false, bufferSize: 16 * 1024)
        var ids: [Int] = []
        let failure = await Self.readSlowly(api.get("/feed").eventStream(options).events(), into: &ids)
        // The events delivered are the first ones, in order, whatever the end.
        #expect(ids == (0..<ids.count).map { $0 + 1 })
        if transportPauses {
            #expect(failure == nil, "\(String(describing: failure))")
            #expect(ids.count == total)
        } else {
            guard case .streamBufferFull(let limit)? = failure else {
                Issue.record("expected streamBufferFull, got \(String(describing: failure))")
                return
            }
            #expect(limit == 16 * 1024)
            #expect(ids.count < total)
        }
        #expect(server.requestCount == 1)
    }

    func aBacklogWithoutIDsCannotResume() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let total = 20_000
        server.route(Self.backlog(of: total, withIDs: false))
        let api = makeClient(server)
        defer { api.close() }
        var numbers: [Int] = []
        let options = EventStreamOptions(bufferSize: 16 * 1024)
        let failure = await Self.readSlowly(api.get("/feed").eventStream(options).events(), into: &numbers)
        #expect(numbers == (0..<numbers.count).map { $0 + 1 })
        if transportPauses {
            // Read with backpressure: the whole backlog, then the server's 204, which ends the stream normally.
            #expect(numbers.count == total)
            #expect(failure == nil, "\(String(describing: failure))")
            #expect(server.requestCount == 2)
        } else {
            // Without an ID, a reconnection would start the backlog again: the stream stops instead.
            guard case .streamBufferFull(let limit)? = failure else {
                Issue.record("expected streamBufferFull, got \(String(describing: failure))")
                return
            }
            #expect(limit == 16 * 1024)
            #expect(numbers.count < total)
            #expect(server.requestCount == 1)
        }
    }

    func connectionsThatEndAtOnceBackOffUpToTheCap() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // Each connection ends as soon as it opens, asking for no wait at all.
        server.route { request in request.sequenceNumber < 8 ? .eventStream([.retry(milliseconds: 0)]) : .status(204) }
        let clock = ScenarioClock()
        let api = makeClient(server) { configuration in
            configuration.clock = clock.clock
            configuration.random = RandomSource { 0.5 }
        }
        defer { api.close() }
        let options = EventStreamOptions(backoff: ReconnectionBackoff(minimum: 1, multiplier: 2, cap: 8))
        let events = try await Self.untilNoContent(api.get("/feed").eventStream(options).events())
        #expect(events.isEmpty)
        #expect(server.requestCount == 9)
        // The server's retry time (0) after the first; then 3/4 (the jitter drawn) of 2, 4 and 8 s, then of the cap.
        #expect(clock.waits == [0, 1.5, 3, 6, 6, 6, 6, 6])
    }

    func aHealthyConnectionResetsTheBackoff() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            let number = request.sequenceNumber
            guard number < 6 else { return .status(204) }
            // The fourth connection's event is read for 5 s of the clock (the reader advances it): a healthy
            // connection. The others end as soon as they open.
            let data = number == 3 ? "long" : "short"
            return .eventStream([.retry(milliseconds: 100), .event(data: data, id: "\(number)")])
        }
        let clock = ScenarioClock()
        let api = makeClient(server) { configuration in
            configuration.clock = clock.clock
            configuration.random = RandomSource { 0.5 }
        }
        defer { api.close() }
        let events = try await Self.untilNoContent(api.get("/feed").events()) { event in
            if event.data == "long" { clock.advance(by: 5) }
        }
        #expect(events.map(\.id) == ["0", "1", "2", "3", "4", "5"])
        // 0.1 s (the retry time), 3/4 of 2 s and of 4 s; after the healthy connection the retry time again, twice,
        // then 3/4 of 2 s.
        #expect(clock.waits == [0.1, 1.5, 3, 0.1, 0.1, 1.5])
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
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(count == 0)
        #expect(server.requestCount == 1)
        // The typed form ends normally too, and so does a stream that has had events.
        let typed = await Self.failure { for try await _ in api.get("/feed").events(decoding: ChatToken.self) {} }
        #expect(typed == nil, "\(String(describing: typed))")
        #expect(server.requestCount == 2)
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

    func aRequestsEditsStartFromTheClientsOptions() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let big = String(repeating: "x", count: 500)
        server.route { request in
            request.path == "/big"
                ? .eventStream([.event(data: "small"), .event(data: big)], ending: .hold)
                : .eventStream([.event(data: "a", id: "1")])
        }
        let api = makeClient(server) { $0.eventStreams = EventStreamOptions(maximumEventSize: 100) }
        defer { api.close() }
        // Only reconnects changes: the client's event size limit stays.
        var data: [String] = []
        let failure = await Self.failure {
            for try await event in api.get("/big").eventStream(editing: { $0.reconnects = false }).events() {
                data.append(event.data)
            }
        }
        #expect(data == ["small"])
        guard case .eventTooLarge(let limit)? = failure else {
            Issue.record("expected eventTooLarge, got \(String(describing: failure))")
            return
        }
        #expect(limit == 100)
        // The edit applies: a GET whose body ends does not reconnect.
        var short: [String] = []
        for try await event in api.get("/short").eventStream(editing: { $0.reconnects = false }).events() {
            short.append(event.data)
        }
        #expect(short == ["a"])
        #expect(server.requests.filter { $0.path == "/short" }.count == 1)
        // Edits apply after options set with eventStream(_:), in order.
        let composed = await Self.failure {
            let request = api.get("/big").eventStream(EventStreamOptions(maximumEventSize: 50))
                .eventStream(editing: { $0.reconnects = true })
                .eventStream(editing: { $0.reconnects = false })
            for try await _ in request.events() {}
        }
        guard case .eventTooLarge(let composedLimit)? = composed else {
            Issue.record("expected eventTooLarge, got \(String(describing: composed))")
            return
        }
        #expect(composedLimit == 50)
        #expect(server.requestCount == 3)
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
            .on(open: { _ in log.withLock { $0.append("open") } })
            .on(close: { reason in log.withLock { $0.append(reason == nil ? "close" : "close: failed") } })
            .on(error: { error in log.withLock { $0.append("error \(error)") } })
            .on(completion: { done.withLock { $0 += 1 } })
            .execute(on: api)
        #expect(await Self.eventually { done.current > 0 })
        // The connection opens before its events and closes after them; the server's 204 then ends the stream
        // normally: no error handler runs, the completion handlers once.
        #expect(log.current == ["open", "a", "b", "close"])
        #expect(done.current == 1)
        #expect(server.requestCount == 2)
    }

    func openAndCloseHandlersSeeEachConnection() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.path == "/held" { return .eventStream([.event(data: "x")], ending: .hold) }
            if request.path == "/silent" { return .eventStream([], ending: .hold) }
            switch request.sequenceNumber {
            case 0: return .eventStream([.retry(milliseconds: 10), .event(data: "a", id: "1")], ending: .drop)
            case 1: return .eventStream([.event(data: "b", id: "2")])
            default: return .status(204)
            }
        }
        let api = makeClient(server)
        defer { api.close() }
        let log = Locked<[String]>([])
        let request = api.get("/feed")
            .on(open: { response in
                log.withLock { $0.append("open \(response.statusCode) \(response.headers["Content-Type"] ?? "-")") }
            })
            .on(close: { reason in log.withLock { $0.append(reason == nil ? "close: ended" : "close: failed") } })
        for try await event in request.events() {
            log.withLock { $0.append(event.data) }
        }
        // Each connection whose stream began opens before its events and closes once; the 204 opens none.
        let open = "open 200 text/event-stream"
        #expect(log.current == [open, "a", "close: failed", open, "b", "close: ended"])
        #expect(server.requestCount == 3)
        // Leaving the loop closes the connection, with no failure.
        log.withLock { $0 = [] }
        let held = api.get("/held").on(open: { _ in log.withLock { $0.append("open") } })
            .on(close: { reason in log.withLock { $0.append(reason == nil ? "close: ended" : "close: failed") } })
        for try await event in held.events() {
            log.withLock { $0.append(event.data) }
            break
        }
        #expect(await Self.eventually { log.current.count == 3 })
        #expect(log.current == ["open", "x", "close: ended"])
        // The opening is seen as soon as the response begins, before the server sends anything.
        let silentOpened = Locked(false)
        let reading = Task {
            for try await _ in api.get("/silent").on(open: { _ in silentOpened.withLock { $0 = true } }).events() {}
        }
        defer { reading.cancel() }
        #expect(await Self.eventually { silentOpened.current })
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

    /// Whether `error` is ``SimpleNetworkingError/cancelled``.
    static func isCancelled(_ error: SimpleNetworkingError?) -> Bool {
        if case .cancelled? = error { return true }
        return false
    }

    /// The events of `stream` until it ends normally, as the server's 204 No Content ends it (the end these servers
    /// give); a stream that fails throws its error.
    static func untilNoContent(
        _ stream: EventStream, onEach: (ServerSentEvent) -> Void = { _ in }
    ) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in stream {
            events.append(event)
            onEach(event)
        }
        return events
    }

    /// The error `body` throws, or `nil`.
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
struct ChatToken: Codable, Sendable, Hashable {
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
    case decodedEventsKeepTheirTypeAndID
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
    case aRequestsEditsStartFromTheClientsOptions
    case theAttemptTimeoutDoesNotEndAHealthyStream
    case aSilentConnectionIsClosedAndReconnected
    case aSilentConnectionFailsWhenNotReconnecting
    case theRequestTimeoutBoundsTheStartOfTheStream
    case handlersSeeEachEventThenTheEnd
    case openAndCloseHandlersSeeEachConnection
    case cancelStopsAnExecutedStream
    case theCallersLastEventIDIsSentOnTheFirstConnection
    case aFastBacklogIsReadWithoutLossOrRepeats
    case aBacklogOnAStreamThatDoesNotReconnect
    case aBacklogWithoutIDsCannotResume
    case connectionsThatEndAtOnceBackOffUpToTheCap
    case aHealthyConnectionResetsTheBackoff

    /// What the scenario shows, as the test's name.
    var testDescription: String {
        switch self {
        case .deliversEventsInOrder:
            "Events arrive in order, with ids, types and multi-line data; the request accepts them"
        case .decodesJSONUntilTheSentinel:
            "A POST with a JSON body decodes each event with the client's decoder and ends on [DONE], closing it"
        case .decodedEventsKeepTheirTypeAndID:
            "decodedEvents(of:until:) yields each decoded value with its event type and ID, and ends on the sentinel"
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
        case .stopsOnNoContent: "A 204 (no more events) ends the stream normally, without an error or a reconnection"
        case .stopsOnAStatusOutside2xx:
            "A status outside 2xx stops the stream with unacceptableStatus and no reconnection"
        case .stopsOnAResponseThatIsNotAnEventStream:
            "A 2xx that is not text/event-stream stops the stream with notAnEventStream carrying the response"
        case .leavingTheLoopClosesTheConnection: "Leaving the loop closes the connection: the server sees it closed"
        case .cancellingTheTaskClosesTheConnection:
            "Cancelling the reading task throws cancelled and closes the connection"
        case .anEventPastTheMaximumSizeThrows:
            "An event past the maximum size throws eventTooLarge after the events before it and closes the connection"
        case .aRequestsEditsStartFromTheClientsOptions:
            "eventStream(editing:) changes only what it edits of the client's options, after eventStream(_:)"
        case .theAttemptTimeoutDoesNotEndAHealthyStream: "A stream that outlasts the attempt timeout is not ended by it"
        case .aSilentConnectionIsClosedAndReconnected:
            "A connection silent for the idle timeout is closed and the stream reconnects with Last-Event-ID"
        case .aSilentConnectionFailsWhenNotReconnecting:
            "A silent connection of a stream that does not reconnect fails with eventStreamIdle"
        case .theRequestTimeoutBoundsTheStartOfTheStream:
            "The request timeout still bounds the wait for the response to begin"
        case .handlersSeeEachEventThenTheEnd:
            "on(event:) handlers see each event across reconnections, then the completion handlers run once"
        case .openAndCloseHandlersSeeEachConnection:
            "on(open:) sees each connection's response head before its events, on(close:) its end, once each"
        case .cancelStopsAnExecutedStream:
            "cancel() stops an executed stream: error handlers get cancelled, completion runs once"
        case .theCallersLastEventIDIsSentOnTheFirstConnection:
            "The Last-Event-ID the caller sets goes with the first connection, and later ones until the server sets one"
        case .aFastBacklogIsReadWithoutLossOrRepeats:
            "A backlog faster than the reader arrives whole, each event once: backpressure, or resuming from the last ID"
        case .aBacklogOnAStreamThatDoesNotReconnect:
            "A stream that does not reconnect reads a fast backlog with backpressure, or throws streamBufferFull"
        case .aBacklogWithoutIDsCannotResume:
            "A backlog without IDs is read with backpressure, or throws streamBufferFull rather than start over"
        case .connectionsThatEndAtOnceBackOffUpToTheCap:
            "Connections that end at once with retry: 0 back off exponentially with jitter up to the cap"
        case .aHealthyConnectionResetsTheBackoff:
            "A connection that stays open for the healthy time resets the backoff to the retry time"
        }
    }
}

extension EventStreamScenarios {
    /// Runs `scenario`.
    func run(_ scenario: EventStreamScenario) async throws {
        switch scenario {
        case .deliversEventsInOrder: try await deliversEventsInOrder()
        case .decodesJSONUntilTheSentinel: try await decodesJSONUntilTheSentinel()
        case .decodedEventsKeepTheirTypeAndID: try await decodedEventsKeepTheirTypeAndID()
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
        case .aRequestsEditsStartFromTheClientsOptions: try await aRequestsEditsStartFromTheClientsOptions()
        case .theAttemptTimeoutDoesNotEndAHealthyStream: try await theAttemptTimeoutDoesNotEndAHealthyStream()
        case .aSilentConnectionIsClosedAndReconnected: try await aSilentConnectionIsClosedAndReconnected()
        case .aSilentConnectionFailsWhenNotReconnecting: try await aSilentConnectionFailsWhenNotReconnecting()
        case .theRequestTimeoutBoundsTheStartOfTheStream: try await theRequestTimeoutBoundsTheStartOfTheStream()
        case .handlersSeeEachEventThenTheEnd: try await handlersSeeEachEventThenTheEnd()
        case .openAndCloseHandlersSeeEachConnection: try await openAndCloseHandlersSeeEachConnection()
        case .cancelStopsAnExecutedStream: try await cancelStopsAnExecutedStream()
        case .theCallersLastEventIDIsSentOnTheFirstConnection:
            try await theCallersLastEventIDIsSentOnTheFirstConnection()
        case .aFastBacklogIsReadWithoutLossOrRepeats: try await aFastBacklogIsReadWithoutLossOrRepeats()
        case .aBacklogOnAStreamThatDoesNotReconnect: try await aBacklogOnAStreamThatDoesNotReconnect()
        case .aBacklogWithoutIDsCannotResume: try await aBacklogWithoutIDsCannotResume()
        case .connectionsThatEndAtOnceBackOffUpToTheCap: try await connectionsThatEndAtOnceBackOffUpToTheCap()
        case .aHealthyConnectionResetsTheBackoff: try await aHealthyConnectionResetsTheBackoff()
        }
    }
}

/// A clock whose waits take no time: each wait is recorded and moves the clock's time on, and a test moves it on by
/// hand for a connection that stays open a while. Its time starts at the real time and passes only so.
final class ScenarioClock: Sendable {
    private let state = Locked((now: Date(), waits: [TimeInterval]()))

    /// The waits asked for, in order.
    var waits: [TimeInterval] { state.current.waits }

    /// Moves the clock's time on by `seconds`.
    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now.addTimeInterval(seconds) }
    }

    var clock: SimpleClock {
        SimpleClock(
            now: { [state] in state.current.now },
            sleep: { [state] seconds in
                state.withLock { state in
                    state.waits.append(seconds)
                    state.now.addTimeInterval(max(0, seconds))
                }
                try Task.checkCancellation()
                await Task.yield()
            })
    }
}

// MARK: - Connections per host

extension EventStreamScenarios {
    /// A server whose `/feed` sends one event and holds the connection open, and whose `/ping` answers at once.
    static func feedAndPingServer() throws -> MockServer {
        let server = try MockServer()
        server.route { request in
            request.path == "/feed" ? .eventStream([.event(data: "hello")], ending: .hold) : .text("pong")
        }
        return server
    }

    /// Opens `count` event streams on `api`, each held open by the server until it is cancelled.
    /// - Returns: The readers, and the indices of those that have their first event.
    static func openStreams(_ count: Int, on api: SimpleNetworking) -> ([Task<Void, Never>], Locked<Set<Int>>) {
        let started = Locked(Set<Int>())
        let readers = (0..<count).map { index in
            Task {
                do {
                    for try await _ in api.get("/feed").eventStream(EventStreamOptions(reconnects: false)).events() {
                        _ = started.withLock { $0.insert(index) }
                    }
                } catch {}
            }
        }
        return (readers, started)
    }

    /// `streams` event streams stay open to one host, and a plain request beside them is answered: the client's
    /// connection limit leaves room for them all.
    static func streamsAndARequestShareTheHost(streams: Int, makeAPI: (MockServer) -> SimpleNetworking) async throws {
        let server = try feedAndPingServer()
        defer { server.shutdown() }
        let api = makeAPI(server)
        defer { api.close() }
        let (readers, started) = openStreams(streams, on: api)
        defer { for reader in readers { reader.cancel() } }
        #expect(await eventually { started.current.count == streams }, "\(started.current.count) of \(streams) began")
        let pong = try await api.get("/ping").timeout(10 * timeScale).response()
        #expect(pong.string == "pong")
        #expect(server.openConnectionCount >= streams)
    }

    /// Of `limit + 1` event streams held open to one host, `limit` open and the last waits for a connection until
    /// one of the others ends.
    static func streamsBeyondTheLimitWait(limit: Int, makeAPI: (MockServer) -> SimpleNetworking) async throws {
        let server = try feedAndPingServer()
        defer { server.shutdown() }
        let api = makeAPI(server)
        defer { api.close() }
        let (readers, started) = openStreams(limit + 1, on: api)
        defer { for reader in readers { reader.cancel() } }
        #expect(await eventually { started.current.count == limit })
        // Long enough for a connection beyond the limit to have been made, if the limit allowed it.
        try await Task.sleep(nanoseconds: UInt64(0.5 * timeScale * 1e9))
        #expect(started.current.count == limit)
        #expect(server.requestCount == limit)
        #expect(server.openConnectionCount == limit)
        // One stream ends: the waiting one gets its connection.
        guard let open = started.current.first else { return }
        readers[open].cancel()
        #expect(await eventually { started.current.count == limit + 1 })
    }
}
