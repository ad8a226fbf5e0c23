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

    // One request: a POST that reconnects, with a larger event limit.
    let jobs = api.post("/jobs/42/watch")
        .eventStream(EventStreamOptions(reconnects: true, maximumEventSize: 4 * 1024 * 1024))
        .events()
    // DOC-SAMPLE-END
    _ = jobs
    return api
}

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

@Suite("Server-sent events article samples")
struct EventStreamSampleTests {
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
        let end = await #expect(throws: SimpleNetworkingError.self) {
            for try await event in api.get("/feed").events() {
                received.append(event.data)
            }
        }
        #expect(end?.response?.statusCode == 204)  // the server has no more events
        #expect(received == ["first", "second"])
        #expect(server.requests.map(\.lastEventID) == [nil, "1", "2"])
    }
    // DOC-SAMPLE-END

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
