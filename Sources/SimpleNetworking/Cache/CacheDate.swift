import Foundation

/// The HTTP-dates of cached responses (`Date`, `Expires`, `Last-Modified`): read with ``HTTPDate``, and written in
/// IMF-fixdate form for the `Date` a cache records on a response that came without one.
package enum CacheDate {
    /// The date in a field value, or `nil` when it is not one HTTP-date.
    ///
    /// RFC 9111 section 4.2 asks a cache to match dates without regard to case: ``HTTPDate`` already does for day
    /// and month names, and the zone (`gmt`, `Gmt`) is read so here. Any other zone is no date (section 4.2).
    /// - Parameters:
    ///   - value: The field value; spaces and tabs around it are ignored.
    ///   - now: The current time, which places a two-digit year (RFC 850 form).
    /// - Returns: The date, or `nil`.
    package static func parse(_ value: String, now: Date) -> Date? {
        // The date read or written last, spelled exactly so again: the same date, without reading it.
        if let last = lastFixdateRead.current, last.text == value { return last.date }
        var bytes = Array(value.utf8)
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes.removeLast() }
        let leading = bytes.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.count
        bytes.removeFirst(leading)
        if bytes.count >= 4, bytes[bytes.count - 4] == UInt8(ascii: " "),
            bytes.suffix(3).map({ $0 | 0x20 }).elementsEqual("gmt".utf8)
        {
            bytes.replaceSubrange((bytes.count - 3)..., with: "GMT".utf8)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        // An IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT", its year of four digits) does not depend on `now`: the last
        // one read is kept for the check above, since a 304's `Date` is read again in the head merged from it
        // (<doc:Performance>, "HTTP cache").
        let isFixdate =
            bytes.count == 29 && bytes[3] == UInt8(ascii: ",")
            && bytes[12...15].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let date = HTTPDate.parse(text, now: now)
        if isFixdate, let date { lastFixdateRead.set((text, date)) }
        return date
    }

    /// The last IMF-fixdate ``parse(_:now:)`` read or ``imfFixdate(_:)`` wrote, and its date.
    private static let lastFixdateRead = Locked<(text: String, date: Date)?>(nil)

    /// The last whole second ``imfFixdate(_:)`` wrote, and its text: a `304` without `Date` is given the time it
    /// arrived, and many arrive within one second.
    private static let lastFixdateWritten = Locked<(second: Int, text: String)?>(nil)

    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), rounded down to the second; `nil` outside the
    /// years 1601 to 9999 that an HTTP-date can hold.
    /// - Parameter date: The moment.
    /// - Returns: The text, or `nil`.
    package static func imfFixdate(_ date: Date) -> String? {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds >= -11_644_473_600, seconds < 253_402_300_800 else { return nil }
        let whole = Int(seconds.rounded(.down))
        if let last = lastFixdateWritten.current, last.second == whole { return last.text }
        let text = fixdate(second: whole)
        lastFixdateWritten.set((whole, text))
        // The head that stores this date reads it back next.
        lastFixdateRead.set((text, Date(timeIntervalSince1970: TimeInterval(whole))))
        return text
    }

    /// The IMF-fixdate of a whole second since 1970 within the years 1601 to 9999.
    private static func fixdate(second whole: Int) -> String {
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let within = whole - days * 86_400
        let (year, month, day) = HTTPDate.civilDate(fromDays: days)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4, counting from Sunday)
        return "\(weekdayNames[weekday]), \(twoDigits(day)) \(monthNames[month - 1]) \(year) "
            + "\(twoDigits(within / 3_600)):\(twoDigits(within / 60 % 60)):\(twoDigits(within % 60)) GMT"
    }

    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    private static func twoDigits(_ number: Int) -> String {
        number < 10 ? "0\(number)" : "\(number)"
    }
}
