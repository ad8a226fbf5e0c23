import Foundation
import FuzzHarness
import SimpleNetworking

/// `RetryAfter.delay(from:now:)` and `RetryAfter.httpDate(_:now:)` on any text, at a fixed now.
///
/// Invariant: no trap; a delay is `nil` or finite and at least 0; a date is `nil` or finite. And a date written
/// in IMF-fixdate or asctime form (RFC 9110 section 5.6.7), from the input's first 8 bytes as a time between 1970
/// and 9999, reads back as that same second, with the delay until it.
///
/// Input: the header value's bytes, decoded from UTF-8 with repair.
@main
enum FuzzHTTPDate: FuzzTarget {
    static func check(_ input: FuzzInput) {
        let now = CookieJarChecks.now
        let text = input.text
        if let delay = RetryAfter.delay(from: text, now: now) {
            Fuzzer.require(delay.isFinite && delay >= 0, "a Retry-After delay is finite and at least 0, not \(delay)")
        }
        if let date = RetryAfter.httpDate(text, now: now) {
            Fuzzer.require(date.timeIntervalSince1970.isFinite, "an HTTP date is a finite time")
        }

        let seed = input.bytes.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let second = Int64(seed % UInt64(latestSecond + 1))
        let expected = Date(timeIntervalSince1970: TimeInterval(second))
        for (form, written) in [("IMF-fixdate", imfFixdate(second)), ("asctime", asctime(second))] {
            let read = RetryAfter.httpDate(written, now: now)
            Fuzzer.require(
                read == expected, "an HTTP date in \(form) form reads back: \(written) read as \(read as Any)")
            let delay = RetryAfter.delay(from: written, now: now)
            Fuzzer.require(
                delay == max(0, expected.timeIntervalSince(now)),
                "the delay until an HTTP date in \(form) form is the time until it: \(written) gave \(delay as Any)")
        }
    }

    /// 9999-12-31 23:59:59 GMT, the last second a four-digit year can write.
    static let latestSecond: Int64 = 253_402_300_799

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func imfFixdate(_ second: Int64) -> String {
        let time = CivilTime(second)
        return
            "\(weekdays[time.weekday]), \(pad(time.day, 2, "0")) \(months[time.month - 1]) \(pad(time.year, 4, "0")) "
            + "\(time.clock) GMT"
    }

    /// `Sun Nov  6 08:49:37 1994`: the day padded with a space.
    static func asctime(_ second: Int64) -> String {
        let time = CivilTime(second)
        return "\(weekdays[time.weekday]) \(months[time.month - 1]) \(pad(time.day, 2, " ")) \(time.clock) "
            + pad(time.year, 4, "0")
    }

    static func pad(_ number: Int64, _ width: Int, _ filler: Character) -> String {
        let digits = String(number)
        return String(repeating: filler, count: max(0, width - digits.count)) + digits
    }

    /// A second since 1970 as a Gregorian date and time in GMT, computed without Foundation's calendars.
    struct CivilTime {
        var year: Int64
        var month: Int
        var day: Int64
        var weekday: Int
        var clock: String

        init(_ second: Int64) {
            let days = second / 86_400
            let within = second % 86_400
            clock = "\(pad(within / 3600, 2, "0")):\(pad(within / 60 % 60, 2, "0")):\(pad(within % 60, 2, "0"))"
            weekday = Int((days + 4) % 7)  // 1970-01-01 was a Thursday
            // Days to a civil date (proleptic Gregorian), in eras of 400 years starting on March 1st.
            let shifted = days + 719_468
            let era = shifted / 146_097
            let dayOfEra = shifted - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
            year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        }
    }
}
