import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A thread-safe list of what happened, in order.
final class EventLog: @unchecked Sendable {
    // @unchecked Sendable: `events` is only touched under `lock`.
    private let lock = NSLock()
    private var events: [String] = []

    func append(_ event: String) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    func count(of event: String) -> Int { all.filter { $0 == event }.count }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0

    @discardableResult
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

extension SimpleRequest {
    /// Executes on `client` and returns when the completion handlers of this execution have run.
    func executeAndWait(on client: SimpleNetworking) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            on(completion: { continuation.resume() }).execute(on: client)
        }
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: TimeInterval = 5, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
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

/// A clock whose sleeps return at once and advance its time, recording each wait.
final class VirtualClock: @unchecked Sendable {
    // @unchecked Sendable: `current` and `waits` are only touched under `lock`.
    private let lock = NSLock()
    private var current: Date
    private var waits: [TimeInterval] = []

    init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = start
    }

    var sleeps: [TimeInterval] {
        lock.lock()
        defer { lock.unlock() }
        return waits
    }

    var clock: SimpleClock {
        SimpleClock(
            now: { [self] in
                lock.lock()
                defer { lock.unlock() }
                return current
            },
            sleep: { [self] seconds in
                lock.withLock {
                    waits.append(seconds)
                    current = current.addingTimeInterval(seconds)
                }
                try Task.checkCancellation()
            })
    }
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
