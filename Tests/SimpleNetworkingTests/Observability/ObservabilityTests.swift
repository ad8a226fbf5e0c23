import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every secret used below contains this marker, so a leak anywhere is found by one search.
private let marker = "S3CR3T"

/// A thread-safe list of events.
private final class EventRecorder: Sendable {
    private let events = Locked<[NetworkEvent]>([])

    func record(_ event: NetworkEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [NetworkEvent] { events.current }
}

@Suite("Events and cURL descriptions never hold a secret")
struct ObservabilityTests {
    @Test("Each request has its own identity in events, shaped as a version 4 UUID, the same on each of its attempts")
    func requestIdentities() async throws {
        let recorder = EventRecorder()
        var configuration = SimpleNetworking.Configuration()
        configuration.eventHandler = { recorder.record($0) }
        configuration.clock = VirtualClock().clock  // the retry's backoff passes without a real wait
        let transport = MockTransport()
        transport.enqueue(.status(503))
        transport.route { _ in .status(200) }
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport, configuration: configuration)
        for index in 0..<200 { _ = try await api.get("/item/\(index)").response() }
        let events = recorder.all
        let identities = Set(events.map(\.requestID))
        #expect(identities.count == 200)
        // A log line prints the first eight characters: they tell the requests apart (they were one process-wide
        // prefix, the same on every line).
        let printed = Set(events.map { $0.description.prefix(10) })
        #expect(printed.count == 200, "\(printed.count) distinct prefixes for 200 requests")
        // The first request was retried after its 503: both attempts carry one identity.
        let first = events.filter { $0.url.hasSuffix("/item/0") }
        #expect(first.count >= 4 && Set(first.map(\.requestID)).count == 1)
        for identity in identities {
            let text = Array(identity.uuidString)
            #expect(text[14] == "4" && "89AB".contains(text[19]), "\(identity)")
        }
    }

    @Test("A captured event log of a redirected, failing request holds no secret")
    func eventLog() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let foreign = server.url("/landing?access_token=\(marker)-4&page=2", host: "localhost").absoluteString
        server.route { request in
            switch request.path {
            case "/start": .redirect(to: foreign, status: 307)
            case "/landing": .redirect(to: "http://user:\(marker)-5@127.0.0.1:\(server.port)/loop?sig=\(marker)-6")
            default: .status(200)
            }
        }
        let recorder = EventRecorder()
        let monitor = RecordingMonitor()
        let api = makeLoopbackClient(server) {
            $0.defaultHeaders = ["X-Api-Key": "\(marker)-1"]
            $0.eventHandler = { recorder.record($0) }
            $0.eventMonitors = [monitor]
            $0.redirectPolicy = .follow(limit: 1)
        }
        defer { api.close() }

        let error = await failure(
            of: api.post("/start").query("token", "\(marker)-2").header("Authorization", "Bearer \(marker)-3")
                .body(json: ["password": "\(marker)-7"]))

        guard case .tooManyRedirects(limit: 1) = error else {
            Issue.record("expected tooManyRedirects(limit: 1), got \(String(describing: error))")
            return
        }
        let events = recorder.all
        let kinds = events.map { event -> String in
            switch event.kind {
            case .started: "started"
            case .willSend: "send"
            case .didReceiveResponse(let status): "\(status)"
            case .attemptFinished(let attempt, let status, _): "attempt \(attempt) \(status.map(String.init) ?? "-")"
            case .cacheAnswered(let source, let status): "\(source) \(status)"
            case .cacheStored(let status): "stored \(status)"
            case .redirectFollowed(_, _, let status): "follow \(status)"
            case .redirectRefused(let status, _): "refuse \(status)"
            case .failed: "failed"
            case .retryScheduled: "retry"
            case .retryWaitFinished: "waited"
            case .finished(let status, let error, _): "finished \(status.map(String.init) ?? "-") \(error != nil)"
            }
        }
        #expect(
            kinds == [
                "started", "send", "307", "follow 307", "send", "302", "refuse 302", "failed", "attempt 1 -",
                "finished - true",
            ])
        #expect(monitor.all.map(\.description) == events.map(\.description))
        #expect(Set(events.map(\.requestID)).count == 1)
        #expect(events.first?.url == "\(server.baseURL.absoluteString)/start?token=<redacted>")
        var log = ""
        for event in events {
            log += "\(event)\n" + String(reflecting: event) + "\n"
            dump(event, to: &log)
        }
        log += "\(String(describing: error))"
        #expect(!log.contains(marker), "\(log)")
        #expect(log.contains("access_token=<redacted>&page=2"))
    }

    @Test("The cURL description redacts secrets by default and shows them only on request")
    func cURL() throws {
        let (api, _) = makeMockClient {
            $0.defaultHeaders = ["Cookie": "session=\(marker)-1", "X-Request-Source": "tests"]
            $0.sensitiveHeaders.insert("X-Tenant-Key")
            $0.sensitiveQueryParameters.insert("tenant_secret")
        }
        let request = api.post("/items?api_key=\(marker)-2&color=blue")
            .query("tenant_secret", "\(marker)-3").query("page", "2")
            .header("Authorization", "Bearer \(marker)-4").header("X-Tenant-Key", "\(marker)-5")
            .header("Proxy-Authorization", "Basic \(marker)-6")
            .body(json: ["name": "Kringle", "password": "\(marker)-7"])

        let redacted = try request.cURLDescription(on: api)
        let raw = try request.cURLDescription(on: api, redactingSecrets: false)

        #expect(!redacted.contains(marker), "\(redacted)")
        #expect(redacted.hasPrefix("curl -X 'POST' 'https://api.example.com/v1/items?api_key=<redacted>&color=blue"))
        #expect(redacted.contains("tenant_secret=<redacted>&page=2'"))
        for header in ["Authorization", "Cookie", "X-Tenant-Key", "Proxy-Authorization"] {
            #expect(redacted.contains("-H '\(header): <redacted>'"))
        }
        #expect(redacted.contains("-H 'X-Request-Source: tests'"))
        #expect(redacted.contains(#"--data-binary '{"name":"Kringle","password":"<redacted>"}'"#))
        #expect((1...7).allSatisfy { raw.contains("\(marker)-\($0)") }, "\(raw)")
    }

    @Test(
        "cURL bodies: form fields are redacted by name, other text is hidden, quotes are escaped",
        arguments: [
            ("a=1&client_secret=\(marker)&b=2", MediaType.formURLEncoded, "a=1&client_secret=<redacted>&b=2"),
            ("my \(marker) note", .plainText, "<\(8 + marker.count) bytes redacted>"),
        ])
    func cURLBodies(body: String, type: MediaType, shown: String) throws {
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: MockTransport())

        let text = try api.put("/it's").body(body, contentType: type).cURLDescription(on: api)

        #expect(text.contains("--data-binary '\(shown)'"))
        #expect(text.contains("-X 'PUT' 'https://api.example.com/v1/it'\\''s'"))
        #expect(!text.contains(marker))
    }

    @Test("Error descriptions name no secret", arguments: SecretScenario.allCases)
    func errorDescriptions(scenario: SecretScenario) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { scenario.reply(to: $0, server: server) }
        // A password in the base URL's userinfo, secret header values and a sensitive query value, on every request.
        // A reserved port refuses connections; no parallel test's server can be given it.
        let refusing = try RefusingPort()
        let port = scenario == .connectionRefused ? refusing.port : server.port
        let base = try #require(URL(string: "http://ada:\(marker)-password@127.0.0.1:\(port)"))
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .never
        configuration.defaultHeaders = ["X-Api-Key": "\(marker)-api-key"]
        let monitor = RecordingMonitor()
        configuration.eventMonitors = [monitor]
        if scenario == .deadlineExceeded {
            // A clock that does not move: the deadline cannot pass before the request is sent, however long a busy
            // suite makes the execution wait for a thread; the attempt's timeout, clipped to it, still ends it.
            let start = Date()
            configuration.clock = SimpleClock(now: { start }, sleep: { _ in })
        }
        let api: SimpleNetworking =
            scenario == .authenticationFailed
            ? MyAPI(baseURL: base, configuration: configuration)
            : SimpleNetworking(baseURL: base, configuration: configuration)
        defer { api.close() }
        let request = scenario.configure(
            api.get(scenario.path).query("access_token", "\(marker)-access-token").query("page", "2")
                .header("Authorization", "Bearer \(marker)-bearer").header("Cookie", "session=\(marker)-cookie"))

        let error = try #require(await scenario.run(request), "\(scenario) succeeded")

        #expect(error.caseName == scenario.expectedCase, "\(error)")
        if scenario.reachesServer {
            // The secrets really were on the request.
            #expect(server.requests.first?.header("Authorization") == "Bearer \(marker)-bearer")
            let query = server.requests.first?.query ?? ""
            #expect(query.contains("\(marker)-access-token"), "\(query)")
        }
        var dumped = ""
        dump(error, to: &dumped)
        let renderings = [
            ("String(describing:)", String(describing: error)), ("String(reflecting:)", String(reflecting: error)),
            ("localizedDescription", error.localizedDescription), ("dump", dumped),
        ]
        for (name, text) in renderings {
            #expect(!text.isEmpty)
            #expect(!text.contains(marker), "\(name) of \(scenario): \(text)")
        }
        // The events, the finish with its error included, hold no secret either, nor any header value or body.
        let events = monitor.all
        var log = ""
        for event in events {
            log += "\(event)\n" + String(reflecting: event) + "\n"
            dump(event, to: &log)
        }
        #expect(!log.contains(marker), "events of \(scenario): \(log)")
        let finishes = events.compactMap { event -> SimpleNetworkingError?? in
            guard case .finished(_, let error, _) = event.kind else { return nil }
            return .some(error)
        }
        // A body that does not decode fails inside the execution (decode(_:) runs the value step), so its finish
        // carries decodingFailed too.
        #expect(finishes.contains { $0?.caseName == error.caseName }, "\(finishes)")
        for case let finish? in finishes {
            #expect(finish.response?.headers.isEmpty ?? true, "\(scenario): \(String(describing: finish.response))")
            #expect(finish.response?.body.isEmpty ?? true, "\(scenario)")
        }
    }
}

/// A way for a request carrying secrets to fail, for ``ObservabilityTests/errorDescriptions(scenario:)``.
enum SecretScenario: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case unacceptableStatus, stoppedByHandler, retryLimitExceeded, decodingFailed, responseTooLarge, redirectRefused
    case tooManyRedirects, connectionRefused, timeout, deadlineExceeded, invalidRequest, invalidURL
    case authenticationFailed

    var testDescription: String { rawValue }

    /// The case of ``SimpleNetworkingError`` the request fails with.
    var expectedCase: String {
        switch self {
        case .connectionRefused, .timeout: "transportFailed"
        default: rawValue
        }
    }

    /// Whether the request is sent at all.
    var reachesServer: Bool { ![.connectionRefused, .invalidRequest, .invalidURL].contains(self) }

    var path: String {
        switch self {
        // A path that names another origin, with a secret in its query.
        case .invalidURL: "//evil.example/steal?access_token=\(marker)-path-token"
        default: "/\(rawValue)"
        }
    }

    func configure(_ request: SimpleRequest) -> SimpleRequest {
        switch self {
        case .stoppedByHandler: request.on(httpStatus: 403) { _, _ in false }
        case .retryLimitExceeded:
            request.retryLimit(1).on(httpStatus: 503) { request, _ in
                request.retry()
                return false
            }
        case .responseTooLarge: request.maximumResponseBodySize(16)
        case .redirectRefused: request.redirects(.sameOrigin)
        case .tooManyRedirects: request.redirects(.follow(limit: 1))
        // Long enough for the request to reach a busy server (under ThreadSanitizer, 3 s was not always), and well
        // short of the 30 s the server holds its answer.
        case .timeout: request.timeout(3 * timeScale)
        case .deadlineExceeded: request.deadline(3 * timeScale)
        case .invalidRequest: request.header("X-Api-Key", "\(marker)-api-key\r\nX-Injected: 1")
        case .decodingFailed, .unacceptableStatus, .connectionRefused, .invalidURL, .authenticationFailed: request
        }
    }

    /// The server's answer: secrets echoed in headers, bodies and redirect targets wherever the scenario allows.
    func reply(to request: RecordedRequest, server: MockServer) -> MockResponse {
        let echoed: [(name: String, value: String)] = [
            ("WWW-Authenticate", #"Bearer realm="\#(marker)-realm""#), ("Set-Cookie", "session=\(marker)-set-cookie"),
        ]
        let body = Data(#"{"id": "\#(marker)-body", "token": "\#(marker)-token"}"#.utf8)
        let elsewhere = "http://ada:\(marker)-password@localhost:\(server.port)"
        switch self {
        case .unacceptableStatus: return MockResponse(status: 401, headers: echoed, body: body)
        case .stoppedByHandler: return MockResponse(status: 403, headers: echoed, body: body)
        case .retryLimitExceeded: return MockResponse(status: 503, headers: echoed, body: body)
        case .decodingFailed, .responseTooLarge:
            return MockResponse(headers: [("Content-Type", "application/json")] + echoed, body: body)
        case .redirectRefused:
            return .redirect(to: "\(elsewhere)/next?access_token=\(marker)-location-token")
        case .tooManyRedirects:
            return .redirect(to: "\(request.path)/more?access_token=\(marker)-location-token")
        case .timeout, .deadlineExceeded: return MockResponse(faults: [.delayHeaders(30)])
        case .authenticationFailed:
            return MockResponse(status: request.path == "/auth" ? 500 : 401, headers: echoed, body: body)
        case .connectionRefused, .invalidRequest, .invalidURL: return .status(200)
        }
    }

    /// Runs `request` and returns the error it fails with, or `nil`.
    func run(_ request: SimpleRequest) async -> SimpleNetworkingError? {
        guard self == .decodingFailed else { return await failure(of: request) }
        do {
            _ = try await request.decode(Model.self)
            return nil
        } catch {
            return error
        }
    }

    /// A model the body does not fit: its `id` is a string.
    private struct Model: Decodable {
        var id: Int
    }
}
