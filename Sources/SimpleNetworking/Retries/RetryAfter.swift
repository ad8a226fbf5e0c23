import Foundation

/// Parses the `Retry-After` header of RFC 9110, section 10.2.3: delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// The wait a `Retry-After` value asks for, or `nil` when the value is invalid.
    ///
    /// Delay-seconds must be plain digits (`-1`, `+1`, `1.0` are invalid). Dates are accepted in the three forms
    /// RFC 9110 requires recipients to read (IMF-fixdate, RFC 850, asctime); a date in the past means no wait. Any
    /// other value, a date with a two-digit year in the IMF-fixdate form among them, is invalid, and the retry policy
    /// falls back to its backoff.
    /// - Parameters:
    ///   - value: The header value.
    ///   - now: The current time.
    /// - Returns: Seconds to wait, zero or more, or `nil`.
    public static func delay(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.utf8.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard !trimmed.isEmpty else { return nil }
        if trimmed.allSatisfy({ (0x30...0x39).contains($0) }) {
            // A huge number of digits is still a valid (very long) wait; the policy clamps it.
            return TimeInterval(String(decoding: trimmed, as: UTF8.self)) ?? .greatestFiniteMagnitude
        }
        guard let date = HTTPDate.parse(String(decoding: trimmed, as: UTF8.self), now: now) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Reads an HTTP-date in any of its three forms, with the library's own parser: any text, however malformed,
    /// gives a date or `nil`, never a trap.
    ///
    /// A two-digit year (the RFC 850 form) is placed as RFC 9110 section 5.6.7 says: in the current century, or the
    /// one before when that would be more than 50 years after `now`.
    /// - Parameters:
    ///   - text: The date text, without surrounding whitespace.
    ///   - now: The current time, which places a two-digit year. Default: the system clock.
    /// - Returns: The date, or `nil` when it is none of the forms.
    public static func httpDate(_ text: String, now: Date = Date()) -> Date? {
        HTTPDate.parse(text, now: now)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
