import Foundation

/// The `Expires` date of a cookie, read by the algorithm of RFC 6265 section 5.1.1, which accepts every format
/// servers send (`Wed, 21 Oct 2015 07:28:00 GMT`, `Wednesday, 21-Oct-15 07:28:00 GMT`, `Wed Oct 21 07:28:00 2015`
/// and mixes of them).
///
/// The date is split into tokens at delimiters; the first token that looks like a time, a day of the month, a
/// month and a year gives each; two-digit years 70-99 are 19xx and 00-69 are 20xx. A date with a part missing or
/// out of range (a year before 1601, hour 24, second 60, February 30) is no date, and the attribute is ignored.
/// The calendar arithmetic is `HTTPDate`'s, which reads the strict HTTP-date of `Retry-After`.
package enum CookieDate {
    /// The date in `text`, or `nil` when it is not one.
    package static func parse(_ text: some StringProtocol) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            let token = Array(token)
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let parsed = leadingNumber(token[...], digits: 1...2) {
                day = parsed
            } else if month == nil, token.count >= 3, let parsed = HTTPDate.month(named: token.prefix(3)) {
                month = parsed
            } else if year == nil, let parsed = leadingNumber(token[...], digits: 2...4) {
                year = parsed
            }
        }
        // A token that reads as a time is the time, even out of range: then the date is none (section 5.1.1).
        guard let time, time.second <= 59,
            let timeOfDay = HTTPDate.TimeOfDay(hour: time.hour, minute: time.minute, second: time.second), let day,
            let month, var year
        else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        return HTTPDate.timestamp(year: year, month: month, day: day, time: timeOfDay)
    }

    /// RFC 6265 delimiters: `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
            || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// The number made by the token's leading digits when there are `digits` of them and no digit follows.
    private static func leadingNumber(_ token: ArraySlice<UInt8>, digits: ClosedRange<Int>) -> Int? {
        let count = token.prefix(while: isDigit).count
        guard digits.contains(count) else { return nil }
        return token.prefix(count).reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `h:m:s` with one or two digits each, anything but a digit after the seconds.
    private static func parseTime(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        let parts = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= 2, parts[1].count <= 2, parts[0].allSatisfy(isDigit),
            parts[1].allSatisfy(isDigit), let hour = leadingNumber(parts[0], digits: 1...2),
            let minute = leadingNumber(parts[1], digits: 1...2), let second = leadingNumber(parts[2], digits: 1...2)
        else { return nil }
        return (hour, minute, second)
    }
}
