import Dispatch
import Foundation

/// The timeouts of attempts in flight, on one dispatch timer.
///
/// A dispatch timer made, armed and cancelled for every attempt cost the URLSession transport about as much as the
/// rest of its own work for a small response (see <doc:Performance>). Here an attempt's deadline is an entry
/// in a table and a heap, and the one timer is armed for the earliest. It is armed again only when a deadline comes
/// before the time it is armed for: an attempt that ends leaves the table at once and the heap when its time comes
/// (or when such entries outnumber the live ones), so a run of requests with the same timeout costs each a lock and a
/// few comparisons.
///
/// The timer fires on a serial queue of its own, not a global one: the global queues have as many threads as cores,
/// and code elsewhere that blocks them must not delay a timeout. Expiry handlers run there, outside the lock, and
/// must not block.
package final class DeadlineTimers: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `state`, behind its lock; `timer` is only scheduled under that
    // lock, and a dispatch timer may be scheduled from any thread.

    /// The process's deadlines, which the URLSession transport uses.
    package static let shared = DeadlineTimers()

    private struct State: Sendable {
        var nextID: UInt64 = 1
        /// The live deadlines: due time (uptime nanoseconds) and what runs then.
        var live: [UInt64: (due: UInt64, expire: @Sendable () -> Void)] = [:]
        var heap = DeadlineHeap()
        /// When the timer is set to fire; `.max` when it is not set.
        var armedFor = UInt64.max
    }

    private let timer: any DispatchSourceTimer
    private let state = Locked(State())

    /// Creates a set of deadlines with a timer of its own; the library uses ``shared``.
    package init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "SimpleNetworking.deadlines"))
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.resume()
    }

    deinit {
        timer.cancel()
    }

    /// Runs `expire` after `seconds`, unless ``cancel(_:)`` is called first.
    /// - Returns: The deadline's identifier, for ``cancel(_:)``.
    package func schedule(after seconds: TimeInterval, _ expire: @escaping @Sendable () -> Void) -> UInt64 {
        // Clamped so that the conversion to nanoseconds cannot overflow; a year is as good as never here.
        let delay = UInt64(min(max(0, seconds.isNaN ? 0 : seconds), 365 * 86_400) * 1e9)
        let due = DispatchTime.now().uptimeNanoseconds + delay
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.live[id] = (due, expire)
            state.heap.push(DeadlineHeap.Entry(due: due, id: id))
            if state.heap.count > 2 * state.live.count + 64 {
                state.heap = DeadlineHeap(state.live.map { DeadlineHeap.Entry(due: $0.value.due, id: $0.key) })
            }
            if due < state.armedFor {
                state.armedFor = due
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: due))
            }
            return id
        }
    }

    /// Forgets a deadline: its handler will not run (unless it has already started).
    package func cancel(_ id: UInt64) {
        state.withLock { _ = $0.live.removeValue(forKey: id) }
    }

    /// The number of deadlines that have neither expired nor been cancelled.
    package var count: Int { state.withLock { $0.live.count } }

    /// The number of entries in the heap, those of ended deadlines not yet dropped included.
    package var storedCount: Int { state.withLock { $0.heap.count } }

    /// Runs the handlers of the deadlines that have passed, and sets the timer for the next.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = state.withLock { state -> [@Sendable () -> Void] in
            var expired: [@Sendable () -> Void] = []
            while let top = state.heap.first, top.due <= now || state.live[top.id] == nil {
                state.heap.removeFirst()
                if top.due <= now, let entry = state.live.removeValue(forKey: top.id) { expired.append(entry.expire) }
            }
            if let next = state.heap.first {
                state.armedFor = next.due
                timer.schedule(deadline: DispatchTime(uptimeNanoseconds: next.due))
            } else {
                state.armedFor = .max
            }
            return expired
        }
        for expire in expired { expire() }
    }
}

/// A binary min-heap of deadlines, earliest first (ties by identifier).
struct DeadlineHeap: Sendable {
    struct Entry: Sendable {
        var due: UInt64
        var id: UInt64

        func precedes(_ other: Entry) -> Bool { due != other.due ? due < other.due : id < other.id }
    }

    private var entries: [Entry] = []

    init() {}

    /// A heap of `entries`.
    init(_ entries: [Entry]) {
        self.entries = entries
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
    }

    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeFirst() {
        guard !entries.isEmpty else { return }
        entries.swapAt(0, entries.count - 1)
        entries.removeLast()
        siftDown(from: 0)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < entries.count, entries[left].precedes(entries[first]) { first = left }
            if right < entries.count, entries[right].precedes(entries[first]) { first = right }
            if first == parent { return }
            entries.swapAt(parent, first)
            parent = first
        }
    }
}
