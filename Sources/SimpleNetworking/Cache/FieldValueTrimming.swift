extension StringProtocol {
    /// The text without the spaces and tabs around it (HTTP's optional whitespace), as
    /// `trimmingCharacters(in: CharacterSet(charactersIn: " \t"))` gives it, but read as UTF-8 bytes: Foundation's
    /// trimming goes through `NSString` on Linux, and the cache reads several fields per request (<doc:Performance>,
    /// "HTTP cache"). A space or a tab byte is never part of a longer UTF-8 sequence, so the result is the same.
    var withoutSurroundingSpacesAndTabs: String {
        let bytes = Substring(self).utf8
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        // Most values have nothing to trim: a string is then returned as it is, without a copy.
        if let string = self as? String, let first = bytes.first, let last = bytes.last, !isSpace(first),
            !isSpace(last)
        {
            return string
        }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
