import Foundation

/// The time source for deadlines, backoff waits and the retry budget; replace it in tests.
public struct SimpleClock: Sendable {
    /// The current time.
    public var now: @Sendable () -> Date
    /// Waits `seconds`; throws `CancellationError` at once when the calling task is cancelled.
    public var sleep: @Sendable (TimeInterval) async throws -> Void

    /// Creates a clock.
    /// - Parameters:
    ///   - now: Returns the current time.
    ///   - sleep: Waits the given number of seconds, honouring task cancellation.
    public init(now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (TimeInterval) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The system clock. The default.
    public static let system = SimpleClock(
        now: { Date() },
        sleep: { seconds in
            guard seconds > 0 else { return try Task.checkCancellation() }
            try await Task.sleep(nanoseconds: UInt64(min(seconds, 1e9) * 1e9))
        })
}

/// Where backoff jitter comes from: a number in `0..<1` per draw. Replace it with ``seeded(_:)`` for repeatable
/// tests.
public struct RandomSource: Sendable {
    /// Returns the next number in `0..<1`.
    public var next: @Sendable () -> Double

    /// Creates a source.
    /// - Parameter next: Returns a number in `0..<1`.
    public init(next: @escaping @Sendable () -> Double) {
        self.next = next
    }

    /// The system's random generator. The default.
    public static let system = RandomSource { Double.random(in: 0..<1) }

    /// A repeatable sequence (SplitMix64) from `seed`, safe to share between threads.
    /// - Parameter seed: The seed; the same seed gives the same sequence.
    /// - Returns: The source.
    public static func seeded(_ seed: UInt64) -> RandomSource {
        let state = Locked(seed)
        return RandomSource {
            let bits = state.withLock { state -> UInt64 in
                state &+= 0x9E37_79B9_7F4A_7C15
                var mixed = state
                mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
                mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
                return mixed ^ (mixed >> 31)
            }
            return Double(bits >> 11) / Double(UInt64(1) << 53)
        }
    }
}
