import Foundation

/// A `Sendable` value guarded by one lock: the one lock type of the package, shared by the library,
/// `SimpleNetworkingTesting` and the tests.
///
/// `@unchecked Sendable` because every read and write of `value` happens while `lock` is held, and `Value` itself is
/// `Sendable`, so what a closure returns out of the lock is safe to hand to another thread. There is deliberately no
/// `_modify` accessor: a yield would hold the lock while the caller runs arbitrary code (or suspends), so a nested
/// read of the same value would deadlock. Use ``withLock(_:)`` for a read-modify-write.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Creates a lock around `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. `body` must not call back into this lock, and must not block.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value.
    package var current: Value { withLock { $0 } }

    /// Replaces the value.
    package func set(_ newValue: Value) { withLock { $0 = newValue } }
}
