// The Swift blocks of the "Server-sent events" article (ServerSentEvents.md), compiled by the test suite: the text
// between a `DOC-SAMPLE` marker and `DOC-SAMPLE-END`, dedented, is the article's block, character for character.
import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// DOC-SAMPLE: ServerSentEvents/chat
struct ChatRequest: Encodable, Sendable {
    var model: String
    var messages: [String]
    var stream = true
}

struct ChatChunk: Decodable {
    var delta: String
}

func streamAnswer(
    to question: String, on api: SimpleNetworking, showing show: (String) -> Void = { _ in }
) async throws -> String {
    var answer = ""
    let chunks = api.post("/v1/chat")
        .body(json: ChatRequest(model: "small", messages: [question]))
        .events(decoding: ChatChunk.self, until: "[DONE]")
    for try await chunk in chunks {
        answer += chunk.delta
        show(answer)  // the answer so far, as it arrives
    }
    return answer
}
// DOC-SAMPLE-END

// DOC-SAMPLE: ServerSentEvents/typedChat
struct ChatUpdate: Decodable {
    var text: String?
    var reason: String?
}

func streamAnswerAndReason(to question: String, on api: SimpleNetworking) async throws -> (String, String?) {
    var answer = ""
    let updates = api.post("/v1/messages")
        .body(json: ChatRequest(model: "small", messages: [question]))
        .decodedEvents(of: ChatUpdate.self)
    for try await update in updates {
        switch update.type {  // the event's `event:` field; update.id is its ID
        case "delta": answer += update.value.text ?? ""
        case "stop": return (answer, update.value.reason)
        default: continue  // "ping" and types added later
        }
    }
    return (answer, nil)
}
// DOC-SAMPLE-END

// DOC-SAMPLE: ServerSentEvents/feed
func followNotifications(on api: SimpleNetworking) async throws {
    for try await event in api.get("/notifications").events() {
        switch event.event {
        case "created": print("new:", event.data)
        case "deleted": print("gone:", event.data)
        default: print("message:", event.data)
        }
    }
}
// DOC-SAMPLE-END

func eventStreamOptionsSample(baseURL: URL) -> SimpleNetworking {
    // DOC-SAMPLE: ServerSentEvents/options
    var configuration = SimpleNetworking.Configuration()
    configuration.eventStreams = EventStreamOptions(reconnectionTime: 5, idleTimeout: 120)
    let api = SimpleNetworking(baseURL: baseURL, configuration: configuration)

    // One request: a POST that reconnects, with a larger event limit; the client's other options stay.
    let jobs = api.post("/jobs/42/watch")
        .eventStream(editing: { options in
            options.reconnects = true
            options.maximumEventSize = 4 * 1024 * 1024
        })
        .events()
    // DOC-SAMPLE-END
    _ = jobs
    return api
}

// DOC-SAMPLE: ServerSentEvents/resume
func followFeed(on api: SimpleNetworking, resumingFrom saved: String?, save: (String) -> Void) async throws {
    // `saved` is the ID the app stored before it quit: nil on the first run, and no header is sent.
    for try await event in api.get("/feed").header("Last-Event-ID", saved).events() {
        print(event.data)
        if let id = event.id { save(id) }
    }
}
// DOC-SAMPLE-END

func reconnectionBackoffSample(api: SimpleNetworking) -> EventStream {
    // DOC-SAMPLE: ServerSentEvents/backoff
    let options = EventStreamOptions(
        bufferSize: 32 * 1024 * 1024,  // more room for a slow reader before URLSession cuts and resumes
        backoff: ReconnectionBackoff(minimum: 2, cap: 120, healthyConnectionTime: 30))
    let feed = api.get("/feed").eventStream(options).events()
    // DOC-SAMPLE-END
    return feed
}

func connectionsPerHostSample(baseURL: URL) -> SimpleNetworking {
    // DOC-SAMPLE: ServerSentEvents/connections
    var configuration = SimpleNetworking.Configuration()
    configuration.maximumConnectionsPerHost = 16  // 8 streams and the app's other requests, to one host
    let api = SimpleNetworking(baseURL: baseURL, configuration: configuration)
    // DOC-SAMPLE-END
    return api
}

// DOC-SAMPLE: ServerSentEvents/lifecycle
func followWithStatus(on api: SimpleNetworking, show: @escaping @Sendable (String) -> Void) async throws {
    let feed = api.get("/notifications")
        .on(open: { response in show("connected (\(response.statusCode))") })
        .on(close: { reason in show("disconnected: \(reason.map { "\($0)" } ?? "the server ended the body")") })
    for try await event in feed.events() {
        show(event.data)
    }
}
// DOC-SAMPLE-END

func eventHandlersSample(api: SimpleNetworking) {
    // DOC-SAMPLE: ServerSentEvents/handlers
    let request = api.get("/notifications")
        .on(event: { event in print(event.event, event.data) })
        .on(error: { error in print("the stream stopped:", error) })
        .on(completion: { print("done") })
        .execute(on: api)

    // Later: close the connection and stop reconnecting.
    request.cancel()
    // DOC-SAMPLE-END
}

// DOC-SAMPLE: ServerSentEvents/main-actor
@MainActor final class NotificationsModel {
    var connected = false
    var messages: [String] = []

    func follow(on api: SimpleNetworking) -> SimpleRequest {
        api.get("/notifications")
            .onMainActor(open: { _ in self.connected = true })
            .onMainActor(event: { event in self.messages.append(event.data) })
            .onMainActor(close: { _ in self.connected = false })
            .execute(on: api)
    }
}
// DOC-SAMPLE-END

@Suite("Server-sent events article samples")
struct EventStreamSampleTests {
    @Test("The notifications model follows a stream on the main actor")
    @MainActor func mainActorModel() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .eventStream([.event(data: "hello")], ending: .hold) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let model = NotificationsModel()
        let request = model.follow(on: api)
        #expect(await eventually { !model.messages.isEmpty })
        #expect(model.messages == ["hello"])
        #expect(model.connected)
        request.cancel()
        #expect(await eventually { !model.connected })
    }

    // DOC-SAMPLE: ServerSentEvents/testing
    @Test func feedResumesAfterADrop() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.lastEventID {
            case nil:
                return .eventStream([.retry(milliseconds: 10), .event(data: "first", id: "1")], ending: .drop)
            case "1":
                return .eventStream([.pause(0.05), .event(data: "second", id: "2")])
            default:
                return .status(204)
            }
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        var received: [String] = []
        // The server's 204 (no more events) ends the loop normally.
        for try await event in api.get("/feed").events() {
            received.append(event.data)
        }
        #expect(received == ["first", "second"])
        #expect(server.requests.map(\.lastEventID) == [nil, "1", "2"])
    }
    // DOC-SAMPLE-END

    @Test("The resume sample sends the saved ID on its first connection and saves each new one")
    func resumeSample() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.lastEventID == "7" ? .eventStream([.event(data: "eighth", id: "8")], ending: .hold) : .status(204)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let saved = Locked<[String]>([])
        let task = Task {
            try await followFeed(on: api, resumingFrom: "7") { id in saved.withLock { $0.append(id) } }
        }
        defer { task.cancel() }
        #expect(await eventually { saved.current == ["8"] })
        #expect(server.requests.first?.lastEventID == "7")
    }

    @Test("The backoff and connection samples set what they say")
    func settingsSamples() throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = connectionsPerHostSample(baseURL: server.baseURL)
        defer { api.close() }
        #expect(api.configuration.maximumConnectionsPerHost == 16)
        _ = reconnectionBackoffSample(api: api)
    }

    @Test("The typed chat sample tells the events apart by their type")
    func typedChatSample() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .eventStream(
                [
                    .event(data: #"{"text":"Hi "}"#, type: "delta"), .event(data: "{}", type: "ping"),
                    .event(data: #"{"text":"there"}"#, id: "2", type: "delta"),
                    .event(data: #"{"reason":"end_turn"}"#, type: "stop"),
                ],
                ending: .hold)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let (answer, reason) = try await streamAnswerAndReason(to: "hello", on: api)
        #expect(answer == "Hi there")
        #expect(reason == "end_turn")
    }

    @Test("The lifecycle sample shows each connection's opening and end around its events")
    func lifecycleSample() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.sequenceNumber == 0 ? .eventStream([.retry(milliseconds: 10), .event(data: "hi")]) : .status(204)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let shown = Locked<[String]>([])
        try await followWithStatus(on: api) { line in shown.withLock { $0.append(line) } }
        #expect(shown.current == ["connected (200)", "hi", "disconnected: the server ended the body"])
    }

    @Test("The chat sample streams the answer and stops at [DONE]")
    func chatSample() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            guard request.method == "POST", request.path == "/v1/chat" else { return .status(404) }
            return .eventStream(
                [.event(data: #"{"delta":"Hi "}"#), .event(data: #"{"delta":"there"}"#), .event(data: "[DONE]")],
                ending: .hold)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await streamAnswer(to: "hello", on: api) == "Hi there")
        #expect(server.requests.first?.bodyText.contains(#""stream":true"#) == true)
    }
}

/// Event streams read from the main actor, as an app's view model does: the iterators need not be `Sendable`.
@MainActor
func readEventsOnTheMainActor(api: SimpleNetworking) async throws -> Int {
    var count = 0
    for try await _ in api.get("/feed").events() { count += 1 }
    for try await _ in api.post("/chat").events(decoding: ChatChunk.self, until: "[DONE]") { count += 1 }
    return count
}
