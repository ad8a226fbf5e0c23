import Foundation

/// A value guarded by one lock: the only place in the library where mutable state is shared between threads.
///
/// `@unchecked Sendable` because every read and write of `value` happens while `lock` is held.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Gives a property an atomic read-modify-write (`_modify`) path: the lock is held across the yield.
    var criticalValue: Value {
        get { withLock { $0 } }
        _modify {
            lock.lock()
            defer { lock.unlock() }
            yield &value
        }
    }
}
