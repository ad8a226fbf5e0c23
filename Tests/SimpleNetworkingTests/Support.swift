import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A thread-safe list of what happened, in order.
final class EventLog: Sendable {
    private let events = Locked<[String]>([])

    func append(_ event: String) {
        events.withLock { $0.append(event) }
    }

    var all: [String] { events.current }

    func count(of event: String) -> Int { all.filter { $0 == event }.count }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Locked(0)

    @discardableResult
    func increment() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }

    var value: Int { count.current }
}

extension SimpleRequest {
    /// Executes on `client` and returns when the completion handlers of this execution have run.
    ///
    /// For requests that run once: a second completion is recorded as a test failure at the caller's line instead of
    /// resuming the continuation again, which would trap and end the whole test run.
    func executeAndWait(on client: SimpleNetworking, sourceLocation: SourceLocation = #_sourceLocation) async {
        let completions = Locked(0)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            on(completion: {
                let count = completions.withLock { count in
                    count += 1
                    return count
                }
                if count == 1 {
                    continuation.resume()
                } else {
                    Issue.record(
                        "the completion handlers ran \(count) times for one execution", sourceLocation: sourceLocation)
                }
            })
            .execute(on: client)
        }
    }
}

/// Polls `condition` until it holds or `timeout` (scaled by ``timeScale``) passes; returns whether it held.
///
/// The bound only catches a test that would otherwise hang: a condition that holds returns at once, so a loose bound
/// costs a passing test nothing. It is loose because every test of the suite starts at once: on a busy 2-core machine,
/// and more under ThreadSanitizer, a loopback request at the start of the run took 5 s of wall time and a test with
/// three of them 15 s, with nothing wrong but the queue for the cores. The condition is checked in the caller's
/// isolation, so that a `@MainActor` test can poll its model's state (under ThreadSanitizer `MainActorHandlerTests`'
/// event-stream test took 24 to 33 s in every CI run, and once ran out of an unscaled 30 s).
func eventually(
    timeout: TimeInterval = 30, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout * timeScale)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return condition()
}

// swift-format-ignore: NeverForceUnwrap
let exampleBaseURL = URL(string: "https://api.example.com/v1")!  // a literal that always parses

/// A client on a fresh MockTransport. Automatic retries are off unless `configure` turns them on, so that tests of
/// handler routing see exactly one response per execution.
func makeMockClient(configure: (inout SimpleNetworking.Configuration) -> Void = { _ in }) -> (
    SimpleNetworking, MockTransport
) {
    let transport = MockTransport()
    var configuration = SimpleNetworking.Configuration()
    configuration.retryPolicy = .never
    configure(&configuration)
    return (SimpleNetworking(baseURL: exampleBaseURL, transport: transport, configuration: configuration), transport)
}

/// A clock for time logic without real waits: `now` moves only when a sleep advances it, and every wait is recorded.
final class VirtualClock: Sendable {
    private struct State {
        var now: Date
        var sleeps: [TimeInterval] = []
    }

    private let state: Locked<State>

    init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Locked(State(now: start))
    }

    /// The waits asked for, in order.
    var sleeps: [TimeInterval] { state.current.sleeps }

    /// The clock's current time.
    var now: Date { state.current.now }

    var clock: SimpleClock {
        SimpleClock(
            now: { [state] in state.current.now },
            sleep: { [state] seconds in
                state.withLock { state in
                    state.sleeps.append(seconds)
                    state.now = state.now.addingTimeInterval(seconds)
                }
                try Task.checkCancellation()
            })
    }
}

/// `SimpleClock.system` that also records each wait as it begins, so a test can wait for that event (with
/// ``eventually(timeout:_:)``) instead of sleeping for a while and hoping the wait has started.
func systemClock(recordingWaitsIn waits: Locked<[TimeInterval]>) -> SimpleClock {
    SimpleClock(
        now: SimpleClock.system.now,
        sleep: { seconds in
            waits.withLock { $0.append(seconds) }
            try await SimpleClock.system.sleep(seconds)
        })
}

/// Returns once the work the library had already queued when it was called (a stray retry, a late handler, a second
/// completion) has had its turn, so that a test can then check that nothing more happened, without a fixed sleep.
///
/// The event waited for is the completion of a few requests, one after another, on a fresh mock client: each goes
/// through the cooperative pool and the default handler queue, which start their jobs in the order they were queued,
/// so it comes after the jobs queued before it. Bounded by `timeout`; returns whether the requests completed.
@discardableResult
func settle(rounds: Int = 3, timeout: TimeInterval = 30) async -> Bool {
    let (api, transport) = makeMockClient()
    transport.route { _ in .status(204) }
    for _ in 0..<rounds {
        let done = Counter()
        api.get("/settle").on(completion: { done.increment() }).execute(on: api)
        guard await eventually(timeout: timeout, { done.value > 0 }) else { return false }
    }
    return true
}

/// A client on `server` with the given configuration changes.
func makeClient(
    for server: MockServer, configure: (inout SimpleNetworking.Configuration) -> Void = { _ in }
) -> SimpleNetworking {
    var configuration = SimpleNetworking.Configuration()
    configure(&configuration)
    return SimpleNetworking(baseURL: server.baseURL, configuration: configuration)
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// The outcome of an async request as a value, for assertions on either side.
func outcome(of body: () async throws -> SimpleResponse) async -> Result<SimpleResponse, SimpleNetworkingError> {
    do {
        return .success(try await body())
    } catch let error as SimpleNetworkingError {
        return .failure(error)
    } catch {
        Issue.record("unexpected error type: \(error)")
        return .failure(.invalidRequest(reason: "unexpected error type"))
    }
}

/// A client with its own session, sending to `server`, with automatic retries off so that each test sees exactly
/// one attempt.
func makeLoopbackClient(
    _ server: MockServer, configure: (inout SimpleNetworking.Configuration) -> Void = { _ in }
) -> SimpleNetworking {
    makeLoopbackClient(server.baseURL, configure: configure)
}

/// The same for any base URL, such as a path below a server's root or a port nothing listens on.
func makeLoopbackClient(
    _ baseURL: URL, configure: (inout SimpleNetworking.Configuration) -> Void = { _ in }
) -> SimpleNetworking {
    var configuration = SimpleNetworking.Configuration()
    configuration.retryPolicy = .never
    configure(&configuration)
    return SimpleNetworking(baseURL: baseURL, configuration: configuration)
}

/// The error a request fails with, or `nil` when it succeeds.
func failure(of request: SimpleRequest) async -> SimpleNetworkingError? {
    do {
        _ = try await request.response()
        return nil
    } catch {
        return error
    }
}

/// How much slower than usual the tests may run: upper bounds on elapsed time are multiplied by it.
///
/// 1 normally; `.ci/run` sets `SIMPLE_NETWORKING_TEST_TIME_SCALE` for the ThreadSanitizer run, which slows every
/// thread several times over. Lower bounds (a wait that must not end early) are never scaled.
let timeScale: Double = {
    let value = ProcessInfo.processInfo.environment["SIMPLE_NETWORKING_TEST_TIME_SCALE"].flatMap(Double.init) ?? 1
    return max(1, value)
}()

/// Whether `attempt` holds in at least one of `times` runs.
///
/// For timing on the wire whose defect is deterministic (a sub-second timer that fires after 1 ms, or late) while the
/// stalls of a busy machine are not: every URLSession in the process shares one libcurl queue, which another test can
/// keep busy for a moment (see "URLSession on Linux" in the documentation).
func holdsInOne(of times: Int = 3, _ attempt: () async throws -> Bool) async rethrows -> Bool {
    for _ in 0..<times where try await attempt() { return true }
    return false
}
