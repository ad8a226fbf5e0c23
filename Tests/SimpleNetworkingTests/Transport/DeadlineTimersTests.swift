import Foundation
import SimpleNetworking
import Testing

/// The one timer behind every attempt's timeout: deadlines fire in order, whenever they were scheduled; cancelled ones
/// never fire; ended attempts leave nothing behind.
@Suite("Deadline timers")
struct DeadlineTimersTests {
    @Test("An earlier deadline scheduled after a later one fires first, and a cancelled one never fires")
    func order() async {
        let timers = DeadlineTimers()
        let fired = Locked<[String]>([])
        let late = timers.schedule(after: 60) { fired.withLock { $0.append("late") } }
        let scheduled = Date()
        let cancelled = timers.schedule(after: 0.01) { fired.withLock { $0.append("cancelled") } }
        timers.cancel(cancelled)
        // Only a cancel that came before the deadline must keep it from firing: a busy machine can stall this test for
        // longer than 10 ms between the two lines.
        let cancelledInTime = Date().timeIntervalSince(scheduled) < 0.01
        _ = timers.schedule(after: 0.1) { fired.withLock { $0.append("second") } }
        _ = timers.schedule(after: 0.05) { fired.withLock { $0.append("first") } }

        #expect(await eventually { fired.current.filter { $0 != "cancelled" }.count == 2 })
        // Both may be due by the time a busy machine runs the timer: they still run in the order of their deadlines.
        #expect(fired.current.filter { $0 != "cancelled" } == ["first", "second"])
        if cancelledInTime { #expect(!fired.current.contains("cancelled")) }
        #expect(timers.count == 1)
        timers.cancel(late)
        #expect(timers.count == 0)
    }

    @Test("Deadlines that are zero, negative or not a number fire at once; an infinite one is a year away")
    func extremeValues() async {
        let timers = DeadlineTimers()
        let fired = Counter()
        for seconds in [0, -1, -.infinity, .nan] as [TimeInterval] {
            _ = timers.schedule(after: seconds) { fired.increment() }
        }
        let never = timers.schedule(after: .infinity) { fired.increment() }

        #expect(await eventually { fired.value == 4 })
        #expect(timers.count == 1)
        timers.cancel(never)
    }

    @Test("The deadlines of 5,000 attempts that ended leave almost nothing stored, and the next deadline still fires")
    func endedAttemptsLeaveNothing() async {
        let timers = DeadlineTimers()
        let stray = Counter()
        for _ in 0..<5_000 { timers.cancel(timers.schedule(after: 60) { stray.increment() }) }

        #expect(timers.count == 0)
        // Entries of ended deadlines are dropped once they outnumber twice the live ones plus 64.
        #expect(timers.storedCount <= 66)
        let fired = Counter()
        _ = timers.schedule(after: 0.01) { fired.increment() }
        #expect(await eventually { fired.value == 1 })
        #expect(stray.value == 0)
    }
}
