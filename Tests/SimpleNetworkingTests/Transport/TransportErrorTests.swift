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

        let start = Date()
        // The defect was a timeout: with 10 s, a busy machine (libcurl's work queue shared with parallel suites) still
        // answers well before it, and the defect fails both expectations.
        let error = await failure(of: api.get("/bad").timeout(10 * timeScale))
        let elapsed = Date().timeIntervalSince(start)

        #expect(error?.urlError?.code == .badServerResponse, "\(String(describing: error)) after \(elapsed) s")
        #expect(elapsed < 8 * timeScale, "took \(elapsed) s")
        let description = error.map { "\($0)" } ?? ""
        #expect(description.contains("not valid HTTP"), "\(description)")
    }

    @Test(
        "Two Content-Length fields that disagree, in either order, fail at once as a bad response, without retries",
        arguments: [Malformed.conflictingLongerFirst, .conflictingShorterFirst])
    func conflictingLengths(_ malformed: Malformed) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // Timed from the request's arrival, so that a busy start of the suite (making the session, connecting)
        // does not count.
        let arrived = Locked<Date?>(nil)
        server.route { _ in
            arrived.withLock { $0 = Date() }
            return MockResponse(faults: [.rawResponse(malformed.bytes)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        for method in [HTTPMethod.get, .post] {
            // libcurl reading the body by the longer length would wait for bytes that never come: the 10 s timeout.
            let error = await failure(of: api.request(method, "/bad").retryPolicy(.never).timeout(10 * timeScale))
            let elapsed = Date().timeIntervalSince(arrived.current ?? .distantPast)
            #expect(error?.transportFailure?.category == .badServerResponse, "\(String(describing: error))")
            #expect(error?.transportFailure?.detail?.contains("Content-Length") == true)
            // About 3 ms on an idle machine. The bound is loose: libcurl's work queue is shared by every session of
            // the process, so a parallel suite's 20,000 header lines can hold this response up for about 4 s
            // (<doc:LinuxPlatformNotes>); it stays far below the defect, the 10 s timeout.
            #expect(elapsed < 6 * timeScale, "\(method.rawValue) took \(elapsed) s")
        }
    }
}
