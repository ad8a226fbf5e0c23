import Foundation
import SimpleNetworking

/// A clock for tests in which time passes only on paper: each wait returns at once, moves ``now`` on by its length,
/// and is recorded in ``waits``.
///
/// Give it to a client with ``SimpleNetworking/Configuration/clock`` and a test of retries runs without real waits:
/// backoff, `Retry-After` and the retry budget read this clock, and the test can check each wait the client asked for.
///
/// ```swift
/// let clock = TestClock()
/// var configuration = SimpleNetworking.Configuration()
/// configuration.clock = clock.simpleClock
/// ```
///
/// The overall deadline (``SimpleNetworking/Configuration/deadline``) is raced against a wait on the same clock, so with
/// this clock it passes at once: leave it unset in such tests. A transport's own timeout
/// (``SimpleNetworking/Configuration/timeout``) still runs on real time.
public final class TestClock: Sendable {
    private struct State {
        var now: Date
        var waits: [TimeInterval] = []
    }

    private let state: Locked<State>

    /// A clock that starts at `start`.
    /// - Parameter start: The first value of ``now``. Default: 14 November 2023, 22:13:20 UTC.
    public init(start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        state = Locked(State(now: start))
    }

    /// The clock's time: its start, plus every wait so far, plus what ``advance(by:)`` added.
    public var now: Date { state.withLock { $0.now } }

    /// The waits asked for, in seconds, in order.
    public var waits: [TimeInterval] { state.withLock { $0.waits } }

    /// Moves the clock on by `seconds`, as time passing between requests.
    /// - Parameter seconds: How far to move it; a negative value is ignored.
    public func advance(by seconds: TimeInterval) {
        guard seconds > 0 else { return }
        state.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
    }

    /// This clock as a client's ``SimpleNetworking/Configuration/clock``.
    public var simpleClock: SimpleClock {
        SimpleClock(
            now: { [state] in state.withLock { $0.now } },
            sleep: { [state] seconds in
                try Task.checkCancellation()
                state.withLock { state in
                    state.waits.append(seconds)
                    if seconds > 0 { state.now = state.now.addingTimeInterval(seconds) }
                }
            })
    }
}
