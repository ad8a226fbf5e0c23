import Foundation
import SimpleNetworking

/// How late this process has run its waiting tasks since the meter started: the part of a wall-clock measurement
/// that belongs to the machine, not to what was measured.
///
/// A task of its own sleeps 50 ms at a time and adds up how much later than asked each sleep ended, past 10 ms of
/// grace: the usual wake-up delay of a loaded machine adds up to seconds over a long check, and is not a stall. When the
/// cooperative pool's threads are all held, or the whole process is not scheduled (a loaded machine, a virtual machine
/// paused for a moment), these ticks end late by the same seconds as whatever was being timed; a transport that is
/// slow on its own does not make them late. A check subtracts ``stop()`` from its elapsed time before it compares it
/// with its bound: in one CI run, on 2 cores, every task of the test process stood still for about 10 s at its start,
/// and a cancellation that took a millisecond was measured at 10.5 s.
package final class LatenessMeter: Sendable {
    private struct State {
        var late: TimeInterval = 0
        /// When the tick under way started; `nil` once stopped.
        var tickStart: DispatchTime? = .now()
    }

    private static let tick: TimeInterval = 0.05
    /// How late a tick may end before it counts.
    private static let grace: TimeInterval = 0.01
    private let state = Locked(State())
    private let ticking: Task<Void, Never>

    /// Starts measuring.
    /// - Parameter executor: Where the ticks run; by default the global concurrent executor, which every task of the
    ///   process shares (its tests give one thread of their own, to hold it up on purpose).
    package init(on executor: (any TaskExecutor)? = nil) {
        let state = state
        ticking = Task(executorPreference: executor) {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(Self.tick * 1e9))
                let now = DispatchTime.now()
                state.withLock { state in
                    guard let start = state.tickStart else { return }
                    state.late += max(0, Self.seconds(from: start, to: now) - Self.tick - Self.grace)
                    state.tickStart = now
                }
            }
        }
    }

    /// Stops measuring.
    /// - Returns: The seconds the ticks ended late in all, with the tick under way counted up to now.
    package func stop() -> TimeInterval {
        ticking.cancel()
        let now = DispatchTime.now()
        return state.withLock { state in
            if let start = state.tickStart {
                state.late += max(0, Self.seconds(from: start, to: now) - Self.tick - Self.grace)
                state.tickStart = nil
            }
            return state.late
        }
    }

    private static func seconds(from start: DispatchTime, to end: DispatchTime) -> TimeInterval {
        TimeInterval(end.uptimeNanoseconds - min(start.uptimeNanoseconds, end.uptimeNanoseconds)) / 1e9
    }
}

/// Times a bound on the wire: the wall-clock seconds since it was made, and how late this process ran its tasks
/// meanwhile (``LatenessMeter``).
///
/// For bounds on a cancellation or a timeout that must not wait for the server: a machine that stalls every task of
/// the process is not charged to the code under test (``Reading/net``), and a wait of the code's own still is.
package final class WireStopwatch: Sendable {
    /// What ``stop()`` read.
    package struct Reading: Sendable {
        /// The wall-clock seconds since the stopwatch was made.
        package let elapsed: TimeInterval
        /// How late this process ran its tasks meanwhile.
        package let lateness: TimeInterval
        /// `elapsed` less `lateness`: the seconds that count against a bound.
        package var net: TimeInterval { elapsed - lateness }
    }

    private let start = Date()
    private let meter = LatenessMeter()

    /// Starts timing.
    package init() {}

    /// Stops the meter; call it once, when what was timed has ended.
    /// - Returns: The elapsed time and the machine's lateness meanwhile.
    package func stop() -> Reading {
        let elapsed = Date().timeIntervalSince(start)
        return Reading(elapsed: elapsed, lateness: meter.stop())
    }
}
