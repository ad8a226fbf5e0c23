import Foundation

/// Reads the client's clock at the steps of one attempt, for its
/// ``NetworkEvent/Kind/attemptFinished(attempt:statusCode:timings:)`` event.
///
/// Made only when something listens (``SimpleNetworking/isObserved``): a request nobody observes takes no lock, no
/// allocation and no clock read for it. The transport calls ``responseHeadArrived()`` on a thread of its own, hence
/// the lock; copies share it. A struct around the lock, not a class: one allocation per attempt instead of two.
struct AttemptTimer: Sendable {
    private struct Marks {
        var responseHead: Date?
        var bodyEnd: Date?
    }

    private let clock: SimpleClock
    private let start: Date
    private let marks = Locked(Marks())

    /// A timer that starts now.
    init(clock: SimpleClock) {
        self.clock = clock
        start = clock.now()
    }

    /// A hop starts: the head and body end of the one before it (a redirect) are no longer the attempt's.
    func hopStarted() {
        marks.withLock { $0 = Marks() }
    }

    /// The hop's response head arrived: one clock read.
    func responseHeadArrived() {
        let now = clock.now()
        marks.withLock { $0.responseHead = now }
    }

    /// The transport returned the hop's response, its body complete.
    func bodyEnded() {
        let now = clock.now()
        marks.withLock { $0.bodyEnd = now }
    }

    /// The attempt's timings, ending now.
    func finish() -> AttemptTimings {
        let end = clock.now()
        let marks = marks.current
        return AttemptTimings(start: start, responseHead: marks.responseHead, bodyEnd: marks.bodyEnd, end: end)
    }
}
