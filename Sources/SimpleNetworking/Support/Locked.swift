import Foundation

/// A `Sendable` value guarded by one lock: the one lock type of the package, shared by the library,
/// `SimpleNetworkingTesting` and the tests.
///
/// Copies share the one value and its lock, as references to an object would. `@unchecked Sendable` because every
/// read and write of the value happens while the lock is held, and `Value` itself is `Sendable`, so what a closure
/// returns out of the lock is safe to hand to another thread. There is deliberately no `_modify` accessor: a yield would hold the lock while the
/// caller runs arbitrary code (or suspends), so a nested read of the same value would deadlock. Use ``withLock(_:)``
/// for a read-modify-write.
///
/// Locks are made and taken several times on every request (the "Performance" article in the documentation). On Linux
/// the value and a `pthread_mutex_t` share one allocation, and the mutex is called directly rather than through
/// `NSLock`; on Apple platforms the value sits beside an `NSLock`. Neither has the run-time exclusivity check a
/// class's stored `var` otherwise gets on each access: the lock already makes every access exclusive.
package struct Locked<Value: Sendable>: @unchecked Sendable {
    private let storage: LockedStorage<Value>

    /// Creates a lock around `value`.
    package init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value. `body` must not call back into this lock, and must not block.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }

    /// A copy of the value.
    package var current: Value { withLock { $0 } }

    /// Replaces the value.
    package func set(_ newValue: Value) { withLock { $0 = newValue } }
}

#if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
    /// The value as the header of one allocation, the mutex as its one element; the value is only reached through
    /// ``withLock(_:)``, with the mutex held.
    private final class LockedStorage<Value: Sendable>: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> LockedStorage<Value> {
            let buffer = unsafeDowncast(
                create(minimumCapacity: 1) { _ in value }, to: LockedStorage<Value>.self)
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            return buffer
        }

        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }

        func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try withUnsafeMutablePointers { value, mutex in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                return try body(&value.pointee)
            }
        }
    }
#else
    /// The value beside its lock; the value is only reached through ``withLock(_:)``, with the lock held.
    private final class LockedStorage<Value: Sendable> {
        private let lock = NSLock()
        @exclusivity(unchecked) private var value: Value

        private init(_ value: Value) {
            self.value = value
        }

        static func make(_ value: Value) -> LockedStorage<Value> {
            LockedStorage(value)
        }

        func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        }
    }
#endif
