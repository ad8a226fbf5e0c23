import Foundation

/// Parses the `Retry-After` header of RFC 9110, section 10.2.3: delay-seconds or an HTTP-date.
public enum RetryAfter {
    /// The wait a `Retry-After` value asks for, or `nil` when the value is invalid.
    ///
    /// Delay-seconds must be plain digits (`-1`, `+1`, `1.0` are invalid). Dates are accepted in the three forms
    /// RFC 9110 requires recipients to read (IMF-fixdate, RFC 850, asctime); a date in the past means no wait.
    /// - Parameters:
    ///   - value: The header value.
    ///   - now: The current time.
    /// - Returns: Seconds to wait, zero or more, or `nil`.
    public static func delay(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        if trimmed.utf8.allSatisfy({ (48...57).contains($0) }) {
            // A huge number of digits is still a valid (very long) wait; the policy clamps it.
            return TimeInterval(trimmed) ?? .greatestFiniteMagnitude
        }
        guard let date = httpDate(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// Reads an HTTP-date in any of its three forms.
    /// - Parameter text: The date text.
    /// - Returns: The date, or `nil` when it is none of the forms.
    public static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        for format in ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
