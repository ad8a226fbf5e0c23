import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a transport failure carries: no secret from the URL, and a code and description a person can act on.
@Suite("Transport errors over loopback")
struct TransportErrorTests {
    static let password = "hunter2-pw-9f3a"
    static let token = "tok-7c1e-secret"
    static let signature = "sig-55aa-secret"

    /// Every way the error and the events can be printed.
    static func renderings(of error: SimpleNetworkingError, events: [NetworkEvent]) -> [String] {
        var dumped = ""
        dump(error, to: &dumped)
        var texts = [String(describing: error), String(reflecting: error), dumped, error.localizedDescription]
        if let urlError = error.urlError {
            var dumpedURLError = ""
            dump(urlError, to: &dumpedURLError)
            texts += [
                String(describing: urlError), String(reflecting: urlError), dumpedURLError,
                urlError.localizedDescription, "\(urlError.userInfo)", String(describing: urlError.failingURL),
            ]
        }
        for event in events {
            var dumpedEvent = ""
            dump(event, to: &dumpedEvent)
            texts += [String(describing: event), String(reflecting: event), dumpedEvent]
        }
        return texts
    }

    @Test("A failure against a closed port keeps no password or sensitive query value, however it is printed")
    func noSecretsInTransportFailure() async throws {
        let refusing = try RefusingPort()
        let port = refusing.port
        let baseURL = try #require(URL(string: "http://alice:\(Self.password)@127.0.0.1:\(port)/v1"))
        let events = Locked<[NetworkEvent]>([])
        let api = makeLoopbackClient(baseURL) { configuration in
            configuration.eventHandler = { event in events.withLock { $0.append(event) } }
        }
        defer { api.close() }

        let error = await failure(
            of: api.get("/items").query("access_token", Self.token).query("sig", Self.signature).query("page", "2"))

        let failure = try #require(error)
        #expect(failure.urlError?.code == .cannotConnectToHost, "\(failure)")
        let failed = events.current.filter { if case .failed = $0.kind { return true } else { return false } }
        #expect(failed.count == 1)
        for text in Self.renderings(of: failure, events: events.current) {
            #expect(!text.contains(Self.password), "\(text)")
            #expect(!text.contains(Self.token), "\(text)")
            #expect(!text.contains(Self.signature), "\(text)")
        }
        // The failing URL is still there to act on: origin, path and harmless parameters.
        let failingURL = try #require(failure.urlError?.failingURL)
        #expect(failingURL.host == "127.0.0.1")
        #expect(failingURL.port == port)
        #expect(failingURL.path == "/v1/items")
        #expect(failingURL.user == nil && failingURL.password == nil)
        #expect(failingURL.query?.contains("page=2") == true)
        #expect(failingURL.query?.contains("access_token=") == true)
    }

    /// Responses that are not valid HTTP/1.1, written byte for byte.
    enum Malformed: String, CaseIterable, CustomTestStringConvertible {
        case garbageStatusLine
        case statusCodeNotANumber
        case headerWithoutColon
        case conflictingContentLength
        case conflictingLongerFirst
        case conflictingShorterFirst
        case invalidContentLength

        var bytes: Data {
            let text: String
            switch self {
            case .garbageStatusLine: text = "HELLO WORLD\r\nContent-Length: 2\r\n\r\nok"
            case .statusCodeNotANumber: text = "HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok"
            case .headerWithoutColon: text = "HTTP/1.1 200 OK\r\nThis is not a header\r\nContent-Length: 2\r\n\r\nok"
            case .conflictingContentLength:
                text = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 10\r\n\r\nok"
            case .conflictingLongerFirst:
                text = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 5\r\n\r\nhello"
            case .conflictingShorterFirst:
                text = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\nhello"
            case .invalidContentLength: text = "HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok"
            }
            return Data(text.utf8)
        }

        var testDescription: String { rawValue }
    }

    @Test(
        "A response that is not valid HTTP fails at once as badServerResponse, with a description to act on",
        arguments: Malformed.allCases)
    func malformedResponse(_ malformed: Malformed) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(faults: [.rawResponse(malformed.bytes)]) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let stopwatch = WireStopwatch()
        // The defect was a timeout: with 10 s, a busy machine (libcurl's work queue shared with parallel suites) still
        // answers well before it, and the defect fails both expectations.
        let error = await failure(of: api.get("/bad").timeout(10 * timeScale))
        let elapsed = stopwatch.stop().net

        #expect(error?.urlError?.code == .badServerResponse, "\(String(describing: error)) after \(elapsed) s")
        #expect(elapsed < 8 * timeScale, "took \(elapsed) s")
        let description = error.map { "\($0)" } ?? ""
        #expect(description.contains("not valid HTTP"), "\(description)")
    }

    /// A server that answers `/bad` with `malformed` and never answers another request on a connection that carried
    /// it, as a server may that took that response by another length and waits for the rest of its body: a request
    /// written on such a connection waits for its timeout. Every other request gets "ok".
    static func poisoningServer(_ malformed: Malformed) throws -> MockServer {
        let server = try MockServer()
        let poisoned = Locked<Set<Int>>([])
        server.route { request in
            if poisoned.withLock({ $0.contains(request.connectionIndex) }) {
                return MockResponse(faults: [.delayHeaders(3600)])  // until the server shuts down
            }
            guard request.path == "/bad" else { return .text("ok") }
            poisoned.withLock { _ = $0.insert(request.connectionIndex) }
            return MockResponse(faults: [.rawResponse(malformed.bytes)])
        }
        return server
    }

    /// The paths of the requests `server` read on a connection after it had carried a `/bad` response.
    static func writtenOnPoisoned(_ server: MockServer) -> [String] {
        var poisoned = Set<Int>()
        var written: [String] = []
        for request in server.requests.sorted(by: { $0.sequenceNumber < $1.sequenceNumber }) {
            if poisoned.contains(request.connectionIndex) { written.append(request.path) }
            if request.path == "/bad" { poisoned.insert(request.connectionIndex) }
        }
        return written
    }

    @Test(
        "Two Content-Length fields that disagree fail at once, without retries, and no later request uses that connection",
        arguments: [Malformed.conflictingLongerFirst, .conflictingShorterFirst])
    func conflictingLengths(_ malformed: Malformed) async throws {
        let server = try Self.poisoningServer(malformed)
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        for method in [HTTPMethod.get, .post] {
            let start = Date()
            // libcurl reading the body by the longer length would wait for bytes that never come: the 30 s timeout.
            // The POST after the GET: written on the GET's connection, which libcurl kept, it waited for the timeout
            // too (RFC 9112, section 6.3: a client must close a connection whose framing was invalid).
            let error = await failure(of: api.request(method, "/bad").retryPolicy(.never).timeout(30 * timeScale))
            let elapsed = Date().timeIntervalSince(start)
            #expect(error?.transportFailure?.category == .badServerResponse, "\(String(describing: error))")
            #expect(error?.transportFailure?.detail?.contains("Content-Length") == true)
            // About 3 ms on an idle machine. The bound is loose: libcurl's work queue is shared by every session of
            // the process, so a parallel suite's 20,000 header lines can hold this response up for about 4 s idle
            // and over 6 s at load 4 (<doc:LinuxPlatformNotes>); it stays below the defects, the 30 s timeout.
            #expect(elapsed < 20 * timeScale, "\(method.rawValue) took \(elapsed) s")
        }
        let start = Date()
        let next = await outcome(of: api.get("/ok").timeout(30 * timeScale))
        let elapsed = Date().timeIntervalSince(start)
        #expect(next == "ok", "the next request: \(next) after \(elapsed) s")
        #expect(elapsed < 20 * timeScale, "the next request took \(elapsed) s")
        let poisoned = Self.writtenOnPoisoned(server)
        #expect(poisoned.isEmpty, "written on a connection after its invalid framing: \(poisoned)")
    }

    @Test(
        "After conflicting Content-Length fields, the default retries and the next request each get a fresh connection",
        arguments: [Malformed.conflictingLongerFirst, .conflictingShorterFirst])
    func noReuseAfterInvalidFraming(_ malformed: Malformed) async throws {
        let server = try Self.poisoningServer(malformed)
        defer { server.shutdown() }
        let api = makeLoopbackClient(server) { $0.retryPolicy = .default }
        defer { api.close() }

        let start = Date()
        let error = await failure(of: api.get("/bad").timeout(30 * timeScale))
        let next = await outcome(of: api.get("/ok").timeout(30 * timeScale))
        let elapsed = Date().timeIntervalSince(start)

        // Before, the first retry was written on the connection libcurl had kept and waited for the timeout
        // (timeouts are not retried), and with a server that closes such a connection after a while, the next request
        // waited for that.
        #expect(error?.transportFailure?.category == .badServerResponse, "\(String(describing: error))")
        #expect(server.requests.filter { $0.path == "/bad" }.count == 3, "the default policy makes three attempts")
        #expect(next == "ok", "the next request: \(next)")
        let poisoned = Self.writtenOnPoisoned(server)
        #expect(poisoned.isEmpty, "written on a connection after its invalid framing: \(poisoned)")
        // Under 0.1 s apart from the retries' backoff (at most 0.5 s and 1 s); loose for a busy machine (8.2 s was seen
        // at load 6 on 2 cores), below the 30 s timeout the defect waits for.
        #expect(elapsed < 20 * timeScale, "took \(elapsed) s")
    }

    @Test("A request in flight when invalid framing retires the session still gets its own response")
    func requestOnRetiredSession() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/slow": return MockResponse(body: Data("slow".utf8), faults: [.delayHeaders(1)])
            case "/bad": return MockResponse(faults: [.rawResponse(Malformed.conflictingLongerFirst.bytes)])
            default: return .text("ok")
            }
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        async let slow = outcome(of: api.get("/slow").timeout(10 * timeScale))
        #expect(await eventually { server.requestCount == 1 })
        let error = await failure(of: api.get("/bad").timeout(10 * timeScale))
        let next = await outcome(of: api.get("/next").timeout(10 * timeScale))

        #expect(error?.transportFailure?.category == .badServerResponse, "\(String(describing: error))")
        #expect(next == "ok")
        // The first task of the new session has the task identifier of the slow one, still in flight on the retired
        // session: attempts are known by their task, not by that identifier, so neither takes the other's response
        // (with the identifier, the slow one waited for its timeout).
        let slowOutcome = await slow
        #expect(slowOutcome == "slow", "the request in flight: \(slowOutcome)")
    }

    /// The response's body as text, or the error it failed with.
    func outcome(of request: SimpleRequest) async -> String {
        do {
            return try await request.response().string ?? "no text"
        } catch {
            return "\(error)"
        }
    }
}
