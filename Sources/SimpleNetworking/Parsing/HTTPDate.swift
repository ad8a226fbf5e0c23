import Foundation

/// The HTTP-date of RFC 9110 section 5.6.7, read by the library's own byte parser: no `DateFormatter`, no locale,
/// and no input that can make it trap.
///
/// All three forms a recipient must accept are read: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete
/// RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and C's asctime form (`Sun Nov  6 08:49:37 1994`). Anything else
/// (a two-digit year in an IMF-fixdate, a zone other than `GMT`, trailing text, a 30 February, non-ASCII bytes) is
/// no date. A two-digit year is the one of the current century, unless that would be more than 50 years ahead of
/// `now`: then it is the most recent past year with those digits, as the RFC requires.
///
/// Cookies read their `Expires` dates with the more lenient algorithm of RFC 6265 (`CookieDate`), which shares the
/// calendar arithmetic below.
package enum HTTPDate {
    /// The date in `text`, or `nil` when `text` is not exactly one HTTP-date.
    /// - Parameters:
    ///   - text: The date, without surrounding whitespace.
    ///   - now: The current time, which places a two-digit year.
    package static func parse(_ text: some StringProtocol, now: Date) -> Date? {
        let bytes = Array(text.utf8)
        var imf = ByteReader(bytes)
        if let date = imfFixdate(&imf) { return date }
        var obsolete = ByteReader(bytes)
        if let date = rfc850(&obsolete, now: now) { return date }
        var ansiC = ByteReader(bytes)
        return asctime(&ansiC)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func imfFixdate(_ reader: inout ByteReader) -> Date? {
        guard reader.dayName(full: false), reader.take(","), reader.take(" "), let day = reader.digits(2),
            reader.take(" "), let month = reader.month(), reader.take(" "), let year = reader.digits(4),
            reader.take(" "), let time = reader.timeOfDay(), reader.take(" GMT"), reader.atEnd
        else { return nil }
        return timestamp(year: year, month: month, day: day, time: time)
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`.
    private static func rfc850(_ reader: inout ByteReader, now: Date) -> Date? {
        guard reader.dayName(full: true), reader.take(","), reader.take(" "), let day = reader.digits(2),
            reader.take("-"), let month = reader.month(), reader.take("-"), let shortYear = reader.digits(2),
            reader.take(" "), let time = reader.timeOfDay(), reader.take(" GMT"), reader.atEnd
        else { return nil }
        return fullYear(shortYear, month: month, day: day, time: time, now: now)
    }

    /// `Sun Nov  6 08:49:37 1994`: the day is two digits, or a space and one digit (one digit alone is read too).
    private static func asctime(_ reader: inout ByteReader) -> Date? {
        guard reader.dayName(full: false), reader.take(" "), let month = reader.month(), reader.take(" ") else {
            return nil
        }
        let day: Int?
        if reader.take(" ") { day = reader.digits(1) } else { day = reader.digits(2) ?? reader.digits(1) }
        guard let day, reader.take(" "), let time = reader.timeOfDay(), reader.take(" "), let year = reader.digits(4),
            reader.atEnd
        else { return nil }
        return timestamp(year: year, month: month, day: day, time: time)
    }

    /// The date with the two-digit year `shortYear` placed as RFC 9110 says: in the current century, or a century
    /// earlier when that is more than 50 years after `now`.
    private static func fullYear(
        _ shortYear: Int, month: Int, day: Int, time: TimeOfDay, now: Date
    ) -> Date? {
        let fiftyYears: TimeInterval = 50 * 365.2425 * 86_400
        let century = (currentYear(at: now) / 100) * 100
        guard let date = timestamp(year: century + shortYear, month: month, day: day, time: time) else { return nil }
        if date.timeIntervalSince(now) > fiftyYears {
            return timestamp(year: century - 100 + shortYear, month: month, day: day, time: time)
        }
        return date
    }

    /// The Gregorian year (UTC) at `date`, without a `Calendar`.
    private static func currentYear(at date: Date) -> Int {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 1970 }
        let days = Int((seconds / 86_400).rounded(.down))
        return civilDate(fromDays: days).year
    }

    /// An hour, minute and second, each already in range (a leap second, 60, is allowed).
    package struct TimeOfDay: Sendable, Equatable {
        package var hour: Int
        package var minute: Int
        package var second: Int

        package init?(hour: Int, minute: Int, second: Int) {
            guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
            self.hour = hour
            self.minute = minute
            self.second = second
        }
    }

    /// The moment of a civil date and time in UTC, or `nil` when the day does not exist in that month or the year
    /// is outside 1601...9999.
    package static func timestamp(year: Int, month: Int, day: Int, time: TimeOfDay) -> Date? {
        guard (1601...9999).contains(year), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// The month (1-12) named by three letters, without regard to case.
    package static func month(named letters: some Collection<UInt8>) -> Int? {
        guard letters.count == 3 else { return nil }
        let lowered = letters.map { $0 | 0x20 }
        return monthNames.firstIndex { $0.elementsEqual(lowered) }.map { $0 + 1 }
    }

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .map { Array($0.utf8) }
    private static let shortDayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { Array($0.utf8) }
    private static let fullDayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        .map { Array($0.utf8) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of the day `days` after 1970-01-01: the inverse of `daysFromCivil` (Howard
    /// Hinnant's algorithm).
    package static func civilDate(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Reads ASCII bytes from the front; every method either consumes what it matched or reports no match.
    private struct ByteReader {
        private let bytes: [UInt8]
        private var index = 0

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
        }

        var atEnd: Bool { index == bytes.count }

        /// Consumes `literal` when the bytes start with it.
        mutating func take(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let matches = literal.withUTF8Buffer { bytes[index..<index + count].elementsEqual($0) }
            if matches { index += count }
            return matches
        }

        /// Exactly `count` ASCII digits.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        /// Three letters naming a month.
        mutating func month() -> Int? {
            guard bytes.count - index >= 3, let month = HTTPDate.month(named: bytes[index..<index + 3]) else {
                return nil
            }
            index += 3
            return month
        }

        /// A day name: three letters, or the whole name for the RFC 850 form.
        mutating func dayName(full: Bool) -> Bool {
            let names = full ? HTTPDate.fullDayNames : HTTPDate.shortDayNames
            for name in names where bytes.count - index >= name.count {
                if bytes[index..<index + name.count].map({ $0 | 0x20 }).elementsEqual(name) {
                    index += name.count
                    return true
                }
            }
            return false
        }

        /// `HH:MM:SS`, two digits each.
        mutating func timeOfDay() -> TimeOfDay? {
            guard let hour = digits(2), take(":"), let minute = digits(2), take(":"), let second = digits(2) else {
                return nil
            }
            return TimeOfDay(hour: hour, minute: minute, second: second)
        }
    }
}
