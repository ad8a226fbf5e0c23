import Foundation

/// The identities of requests in events (``NetworkEvent/requestID``): a random 128-bit base drawn once per process,
/// plus a counter, shaped as a version 4 UUID.
///
/// Unique within the process, and as unlikely to repeat across processes as random UUIDs are. Foundation's `UUID()`
/// on Linux opens and reads `/dev/urandom` for each one: three system calls on every request (<doc:Performance>).
enum RequestIdentity {
    private static let base: (high: UInt64, low: UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    private static let counter = Locked<UInt64>(0)

    /// A new identity.
    static func next() -> UUID {
        let count = counter.withLock { count -> UInt64 in
            count &+= 1
            return count
        }
        // Version 4 (byte 6 is 0x4_) and the RFC 4122 variant (byte 8 is 0b10______); the counter changes the low
        // 62 bits, so the first 2^62 identities differ. It is also scrambled into the high half, so that the first
        // eight characters a log line prints (``NetworkEvent/description``) tell requests apart.
        let scrambled = count &* 0x9E37_79B9_7F4A_7C15
        let high = ((base.high ^ scrambled) & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = ((base.low ^ count) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let h = high.bigEndian
        let l = low.bigEndian
        return withUnsafeBytes(of: (h, l)) { bytes in
            UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
    }
}
