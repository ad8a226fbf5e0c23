import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A monitor that keeps every event it receives, in order.
final class RecordingMonitor: EventMonitor {
    private let events = Locked<[NetworkEvent]>([])

    func receive(_ event: NetworkEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [NetworkEvent] { events.current }
}

/// A clock that moves 1 ms on every read (and by the whole wait on a sleep), so that each step a test times reads a
/// later date than the one before it.
final class TickingClock: Sendable {
    private let time = Locked(Date(timeIntervalSince1970: 1_700_000_000))

    var clock: SimpleClock {
        SimpleClock(
            now: { [time] in
                time.withLock { time in
                    time = time.addingTimeInterval(0.001)
                    return time
                }
            },
            sleep: { [time] seconds in
                time.withLock { $0 = $0.addingTimeInterval(seconds) }
                try Task.checkCancellation()
            })
    }
}

/// A short name for what an event reports, for comparing sequences.
func label(_ event: NetworkEvent) -> String {
    switch event.kind {
    case .started: "started"
    case .willSend: "send " + (URL(string: event.url)?.path ?? event.url)
    case .didReceiveResponse(let status): "\(status)"
    case .attemptFinished(let attempt, let status, _): "attempt \(attempt): \(status.map(String.init) ?? "none")"
    case .retryScheduled(let attempt, _): "retry \(attempt)"
    case .retryWaitFinished(let attempt, _): "waited before \(attempt)"
    case .cacheAnswered(let source, let status): "\(source) \(status)"
    case .cacheStored(let status): "stored \(status)"
    case .redirectFollowed(_, _, let status): "follow \(status)"
    case .redirectRefused(let status, _): "refuse \(status)"
    case .failed(let error): "failed \(error.caseName)"
    case .finished(let status, let error, _):
        "finished \(status.map(String.init) ?? "none")" + (error.map { " \($0.caseName)" } ?? "")
    }
}

@Suite("Event monitors see each execution from start to finish")
struct EventMonitorTests {
    @Test("A redirected request retried after a 503 reports its start, hops, attempts, retry, wait and finish in order")
    func orderOfEvents() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.redirect(to: "/target"))
        server.enqueue(.status(503))
        server.enqueue(.redirect(to: "/target"))
        server.enqueue(.text("ok"))
        let virtual = VirtualClock()
        let start = virtual.now
        let monitor = RecordingMonitor()
        let api = makeClient(for: server) {
            $0.clock = virtual.clock  // time moves only by the retry's wait: every duration below is exact
            $0.random = RandomSource { 0.5 }
            $0.retryPolicy = RetryPolicy(maximumAttempts: 3, backoff: Backoff(base: 0.4248, cap: 0.4248))
            $0.eventMonitors = [monitor]
        }
        defer { api.close() }

        let response = try await api.get("/start").response()

        #expect(response.statusCode == 200)
        let events = monitor.all
        #expect(
            events.map(label) == [
                "started",
                "send /start", "302", "follow 302", "send /target", "503", "attempt 1: 503",
                "retry 2", "waited before 2",
                "send /start", "302", "follow 302", "send /target", "200", "attempt 2: 200",
                "finished 200",
            ])
        #expect(Set(events.map(\.requestID)).count == 1)
        #expect(virtual.sleeps == [0.2124])
        // Dates come from the client's clock, not the system's.
        #expect(events.first?.date == start)
        #expect(events.last?.date == start.addingTimeInterval(0.2124))
        // Each line after its "[id] METHOD url: " prefix.
        let lines = events.map { String($0.description.dropFirst("[12345678] \($0.method) \($0.url): ".count)) }
        #expect(lines.first == "started")
        #expect(lines.contains("retry as attempt 2 in 212.4 ms"), "\(lines)")
        #expect(lines.contains("waited 212.4 ms before attempt 2"), "\(lines)")
        #expect(lines.contains("attempt 1 finished, 503 in 0 ms (head after 0 ms, body 0 ms)"), "\(lines)")
        #expect(lines.last == "finished 200 in 212.4 ms")
        guard case .finished(_, _, let duration) = events.last?.kind else { return }
        #expect(abs(duration - 0.2124) < 1e-6)
    }

    @Test(
        "Each attempt's timings are read from the client's clock: start, then the last hop's head, then its body end",
        arguments: [false, true])
    func timingsInOrder(streamed: Bool) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/start" ? .redirect(to: "/target") : .text(String(repeating: "x", count: 1000))
        }
        let monitor = RecordingMonitor()
        let api = makeLoopbackClient(server) {
            $0.clock = TickingClock().clock
            $0.eventMonitors = [monitor]
        }
        defer { api.close() }
        // A progress handler sends the body through the transfer of a download (`HopReceiver`) rather than the
        // collector of `response()`.
        let request = api.get("/start")
        if streamed { request.progress { _ in } }

        _ = try await request.response()

        let events = monitor.all
        guard let finished = events.firstIndex(where: { label($0) == "attempt 1: 200" }),
            case .attemptFinished(_, _, let timings) = events[finished].kind,
            let head = timings.responseHead, let bodyEnd = timings.bodyEnd
        else {
            Issue.record("no complete timings in \(events.map(label))")
            return
        }
        // The last hop: its request went before its head came, and its response was reported after its body ended.
        let lastSend = try #require(events.lastIndex { label($0) == "send /target" })
        let lastResponse = try #require(events.lastIndex { label($0) == "200" })
        #expect(events[0].date < timings.start)
        #expect(events[lastSend].date < head)
        #expect(head < bodyEnd)
        #expect(bodyEnd < events[lastResponse].date)
        #expect(events[lastResponse].date < timings.end)
        #expect(timings.end < events[finished].date)
        #expect(timings.timeToResponseHead == head.timeIntervalSince(timings.start))
        #expect(timings.bodyDuration == bodyEnd.timeIntervalSince(head))
        #expect(timings.duration == timings.end.timeIntervalSince(timings.start))
    }

    @Test("A request that cannot connect reports the attempt without a head, and finishes with its error")
    func failureWithoutResponse() async throws {
        let refusing = try RefusingPort()
        let monitor = RecordingMonitor()
        let api = makeLoopbackClient(refusing.baseURL) { $0.eventMonitors = [monitor] }
        defer { api.close() }

        let error = await failure(of: api.get("/nothing"))

        let events = monitor.all
        #expect(error?.caseName == "transportFailed")
        #expect(
            events.map(label) == [
                "started", "send /nothing", "failed transportFailed", "attempt 1: none",
                "finished none transportFailed",
            ])
        guard case .attemptFinished(_, _, let timings) = events.first(where: { label($0) == "attempt 1: none" })?.kind,
            case .finished(_, let finishedWith?, let duration) = events.last?.kind
        else { return }
        #expect(timings.responseHead == nil && timings.bodyEnd == nil && timings.timeToResponseHead == nil)
        #expect(timings.start <= timings.end)
        #expect(finishedWith.transportFailure?.category == error?.transportFailure?.category)
        #expect(duration >= 0)
        #expect(events.last?.description.contains("finished in ") == true)
        #expect(events.last?.description.contains("with an error: \(finishedWith)") == true)
    }

    @Test("An attempt whose redirect cannot connect has no head in its timings: the redirect's head is not the last")
    func failedLastHop() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let refusing = try RefusingPort()
        server.route { _ in .redirect(to: refusing.baseURL.absoluteString + "/gone") }
        let monitor = RecordingMonitor()
        let api = makeLoopbackClient(server) { $0.eventMonitors = [monitor] }
        defer { api.close() }

        let error = await failure(of: api.get("/start"))

        #expect(error?.caseName == "transportFailed")
        let events = monitor.all
        #expect(
            events.map(label) == [
                "started", "send /start", "302", "follow 302", "send /gone", "failed transportFailed",
                "attempt 1: none",
                "finished none transportFailed",
            ])
        guard case .attemptFinished(_, _, let timings) = events.first(where: { label($0) == "attempt 1: none" })?.kind
        else { return }
        #expect(timings.responseHead == nil && timings.bodyEnd == nil)
    }

    @Test("A status error finishes with its status and its error, whose response keeps no header and no body")
    func failureWithResponse() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("private details", status: 404, headers: [("X-Private", "private value")]) }
        let monitor = RecordingMonitor()
        let api = makeLoopbackClient(server) { $0.eventMonitors = [monitor] }
        defer { api.close() }

        let error = await failure(of: api.get("/missing"))

        #expect(error?.response?.headers["X-Private"] == "private value")  // the caller's error keeps them
        guard case .finished(let status, let finishedWith?, _) = monitor.all.last?.kind else {
            Issue.record("no failed finish in \(monitor.all.map(label))")
            return
        }
        #expect(status == 404)
        #expect(finishedWith.caseName == "unacceptableStatus")
        #expect(finishedWith.response?.statusCode == 404)
        #expect(finishedWith.response?.headers.isEmpty == true)
        #expect(finishedWith.response?.body.isEmpty == true)
        #expect(finishedWith.description == error?.description)
    }

    @Test("The event handler and each monitor receive the same events, in that order")
    func monitorsBesideTheHandler() async throws {
        let log = Locked<[String]>([])
        struct Named: EventMonitor {
            let name: String
            let log: Locked<[String]>
            func receive(_ event: NetworkEvent) { log.withLock { $0.append("\(name) \(event)") } }
        }
        let (api, transport) = makeMockClient {
            $0.clock = VirtualClock().clock
            $0.retryPolicy = .default
            $0.eventHandler = { event in log.withLock { $0.append("handler \(event)") } }
            $0.eventMonitors = [Named(name: "first", log: log), Named(name: "second", log: log)]
        }
        transport.enqueue(.status(503))
        transport.route { _ in .status(200) }

        _ = try await api.get("/item").response()

        let lines = log.current
        let handled = lines.filter { $0.hasPrefix("handler ") }.map { $0.dropFirst("handler ".count) }
        #expect(handled.count >= 8, "\(lines)")
        var expected: [String] = []
        for line in handled { expected += ["handler \(line)", "first \(line)", "second \(line)"] }
        #expect(lines == expected)
    }

    @Test("A retry a handler asks for is announced, with no wait to report")
    func handlerRetry() async throws {
        let monitor = RecordingMonitor()
        let (api, transport) = makeMockClient { $0.eventMonitors = [monitor] }
        transport.enqueue(.status(503))
        transport.route { _ in .status(200) }
        let request = api.get("/item").on(httpStatus: 503) { request, _ in
            request.retry()
            return false
        }

        _ = try await request.response()

        #expect(
            monitor.all.map(label) == [
                "started", "send /v1/item", "503", "attempt 1: 503", "retry 2", "send /v1/item", "200",
                "attempt 2: 200", "finished 200",
            ])
    }
}
