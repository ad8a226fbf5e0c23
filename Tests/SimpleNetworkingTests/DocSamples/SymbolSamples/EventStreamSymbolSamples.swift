import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The Swift samples of the `///` comments in Sources/SimpleNetworking/EventStreams/: each region is shown verbatim by
// the comment its name points to. The types the samples name are declared in `EventStreamSymbolSamples`.

/// The names the EventStreams samples use, in a namespace of their own.
enum EventStreamSymbolSamples {
    struct Question: Encodable, Sendable {
        var text: String
    }

    struct Token: Decodable {
        var text: String
    }

    struct Job: Encodable, Sendable {
        var name: String
    }

    static func decodedEvent(api: SimpleNetworking, question: Question) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/EventStream.swift#decoded-event
        for try await event in api.post("/chat").body(json: question).decodedEvents(of: Token.self) {
            if event.type == "delta" { print(event.value.text, terminator: "") }
        }
        // SYMBOL-SAMPLE-END
    }

    static func options(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/EventStreamOptions.swift#options
        api.post("/jobs/42/progress").eventStream(EventStreamOptions(reconnects: true, idleTimeout: 60))
        api.get("/feed").eventStream(editing: { $0.reconnects = false })
        // SYMBOL-SAMPLE-END
    }

    static func events(api: SimpleNetworking) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/SimpleRequest+EventStreams.swift#events
        for try await event in api.get("/feed").events() {
            print(event.event, event.data)
        }
        // SYMBOL-SAMPLE-END
    }

    static func eventsDecoding(api: SimpleNetworking, question: Question) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/SimpleRequest+EventStreams.swift#events-decoding
        let tokens = api.post("/chat").body(json: question).events(decoding: Token.self, until: "[DONE]")
        for try await token in tokens {
            print(token.text, terminator: "")
        }
        // SYMBOL-SAMPLE-END
    }

    static func decodedEvents(api: SimpleNetworking, question: Question) async throws {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/SimpleRequest+EventStreams.swift#decoded-events
        for try await event in api.post("/chat").body(json: question).decodedEvents(of: Token.self, until: "[DONE]") {
            switch event.type {
            case "delta": print(event.value.text, terminator: "")
            default: break
            }
        }
        // SYMBOL-SAMPLE-END
    }

    static func eventStream(api: SimpleNetworking, job: Job) -> EventStream {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/SimpleRequest+EventStreams.swift#event-stream
        let progress = api.post("/jobs").body(json: job).eventStream(EventStreamOptions(reconnects: true)).events()
        // SYMBOL-SAMPLE-END
        return progress
    }

    static func eventStreamEditing(api: SimpleNetworking) -> EventStream {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/SimpleRequest+EventStreams.swift#event-stream-editing
        // The client's idle timeout and event size limit, without reconnecting.
        let feed = api.get("/feed").eventStream(editing: { $0.reconnects = false }).events()
        // SYMBOL-SAMPLE-END
        return feed
    }

    static func onEvent(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/SimpleRequest+EventStreams.swift#on-event
        api.get("/notifications")
            .on(event: { event in print(event.data) })
            .on(error: { error in print(error) })
            .execute(on: api)
        // SYMBOL-SAMPLE-END
    }

    static func onOpen(api: SimpleNetworking) {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/EventStreams/SimpleRequest+EventStreams.swift#on-open
        api.get("/notifications")
            .on(open: { response in print("connected:", response.statusCode) })
            .on(close: { reason in print("disconnected:", reason.map { "\($0)" } ?? "ended") })
            .on(event: { event in print(event.data) })
            .execute(on: api)
        // SYMBOL-SAMPLE-END
    }
}

@Suite("The EventStreams comments' samples run")
struct EventStreamSymbolSampleTests {
    @Test("The decoding samples post the question and read the tokens until [DONE]")
    func decodingSamples() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .eventStream(
                [
                    .event(data: #"{"text":"Hi "}"#, type: "delta"),
                    .event(data: #"{"text":"there"}"#, type: "delta"), .event(data: "[DONE]", type: "delta"),
                ],
                ending: .hold)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let question = EventStreamSymbolSamples.Question(text: "hello")
        try await EventStreamSymbolSamples.eventsDecoding(api: api, question: question)
        try await EventStreamSymbolSamples.decodedEvents(api: api, question: question)
        #expect(server.requests.map(\.path) == ["/chat", "/chat"])
        #expect(server.requests.allSatisfy { $0.bodyText.contains(#""text":"hello""#) })
    }

    @Test("The events() sample reads the feed until the server's 204")
    func events() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.sequenceNumber == 0 ? .eventStream([.retry(milliseconds: 10), .event(data: "hi")]) : .status(204)
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        try await EventStreamSymbolSamples.events(api: api)
        #expect(server.requests.map(\.path) == ["/feed", "/feed"])
    }
}
