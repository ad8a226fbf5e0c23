extension StringProtocol {
    /// The text without the spaces and tabs around it (HTTP's optional whitespace), as
    /// `trimmingCharacters(in: CharacterSet(charactersIn: " \t"))` gives it, but read as UTF-8 bytes: Foundation's
    /// trimming goes through `NSString` on Linux, and the cache reads several fields per request (<doc:Performance>,
    /// "HTTP cache"). A space or a tab byte is never part of a longer UTF-8 sequence, so the result is the same.
    package var withoutSurroundingSpacesAndTabs: String {
        // A `String` takes its own, faster, reading below; this one reads substrings.
        let bytes = Substring(self).utf8
        guard let first = bytes.firstIndex(where: { !isSpaceOrTab($0) }),
            let last = bytes.lastIndex(where: { !isSpaceOrTab($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

extension String {
    /// ``StringProtocol/withoutSurroundingSpacesAndTabs`` for a `String`, read on its contiguous bytes: a value with
    /// nothing to trim, the usual case, is returned as it is after reading its first and last bytes.
    package var withoutSurroundingSpacesAndTabs: String {
        let trimmed = utf8.withContiguousStorageIfAvailable { bytes -> String? in
            var start = 0
            var end = bytes.count
            while start < end, isSpaceOrTab(bytes[start]) { start += 1 }
            while end > start, isSpaceOrTab(bytes[end - 1]) { end -= 1 }
            guard start > 0 || end < bytes.count else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        switch trimmed {
        case .some(.some(let text)): return text
        case .some(.none): return self
        case .none: return self[...].withoutSurroundingSpacesAndTabs
        }
    }
}

/// Whether `byte` is HTTP's optional whitespace: a space or a tab.
@inline(__always)
private func isSpaceOrTab(_ byte: UInt8) -> Bool {
    byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
}
