import Foundation

/// A `Sendable` value guarded by one lock: the one lock type of the package, shared by the library,
/// `SimpleNetworkingTesting` and the tests.
///
/// `@unchecked Sendable` because every read and write of the value happens while the lock is held, and `Value` itself
/// is `Sendable`, so what a closure returns out of the lock is safe to hand to another thread. There is deliberately
/// no `_modify` accessor: a yield would hold the lock while the caller runs arbitrary code (or suspends), so a nested
/// read of the same value would deadlock. Use ``withLock(_:)`` for a read-modify-write.
///
/// The value is stored with `@exclusivity(unchecked)`: the lock already makes every access exclusive, and the run-time
/// check a class's stored `var` otherwise gets costs about as much as taking the lock. On Linux the lock is a
/// `pthread_mutex_t` of its own, called directly rather than through `NSLock`. Locks are taken several times on every
/// request (the "Performance" article in the documentation).
package final class Locked<Value: Sendable>: @unchecked Sendable {
    #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #else
        private let lock = NSLock()
    #endif
    @exclusivity(unchecked) private var value: Value

    /// Creates a lock around `value`.
    package init(_ value: Value) {
        self.value = value
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            mutex = .allocate(capacity: 1)
            pthread_mutex_init(mutex, nil)
        #endif
    }

    #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }
    #endif

    /// Runs `body` with exclusive access to the value. `body` must not call back into this lock, and must not block.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
        #else
            lock.lock()
            defer { lock.unlock() }
        #endif
        return try body(&value)
    }

    /// A copy of the value.
    package var current: Value { withLock { $0 } }

    /// Replaces the value.
    package func set(_ newValue: Value) { withLock { $0 = newValue } }
}
