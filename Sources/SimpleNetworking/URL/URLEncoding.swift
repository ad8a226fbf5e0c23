import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Percent-encoding by RFC 3986, byte by byte, keeping existing `%XX` escapes.
enum URLEncoding {
    static let unreservedBytes = ByteSet(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    /// pchar and "/": unreserved, sub-delims, ":" and "@".
    static let pathBytes = unreservedBytes.union("!$&'()*+,;=:@/".utf8)
    /// Query text: pchar, "/" and "?".
    static let queryBytes = pathBytes.union("?".utf8)

    static func queryItem(_ item: SimpleRequest.QueryItem) -> String {
        let name = encode(item.name, allowing: unreservedBytes, keepEscapes: false)
        guard let value = item.value else { return name }
        return name + "=" + encode(value, allowing: unreservedBytes, keepEscapes: false)
    }

    static func split(_ path: String) -> (path: String, query: String?) {
        // By UTF-8 byte: "?" is ASCII, so it never falls inside a character, and no Character is formed.
        guard let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (path, nil) }
        return (String(path[..<mark]), String(path[path.utf8.index(after: mark)...]))
    }

    /// Why an absolute request URL with user info (`user:password@host`) is refused: such URLs often come from
    /// server data, and the transport would turn the user info into credentials (<doc:SecurityDefaults>).
    /// User info in the client's base URL is allowed.
    static let userInfoReason =
        "an absolute request URL must not hold user info (user:password@); put credentials in the base URL or in "
        + "an Authorization header"

    /// Refuses paths that name an origin: `//host`, `\\host`, `scheme://`, `http:`/`https:`, after leading
    /// white space. One scan of the path's first bytes; a path that starts with non-ASCII text takes the slower
    /// Unicode-aware check.
    static func refuseOriginChange(in path: String) throws(SimpleNetworkingError) {
        let bytes = path.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex, asciiWhitespace.contains(bytes[index]) { index = bytes.index(after: index) }
        guard index != bytes.endIndex else { return }
        let first = bytes[index]
        if first >= 0x80 { return try refuseOriginChangeInUnicode(path) }
        let slash = UInt8(ascii: "/")
        let backslash = UInt8(ascii: "\\")
        if first == backslash { throw originChange }
        if first == slash {
            let next = bytes.index(after: index)
            if next != bytes.endIndex, bytes[next] == slash || bytes[next] == backslash { throw originChange }
            return
        }
        guard asciiLetters.contains(first) else { return }
        var end = index
        while end != bytes.endIndex, schemeBytes.contains(bytes[end]) { end = bytes.index(after: end) }
        guard end != bytes.endIndex else { return }
        if bytes[end] >= 0x80 { return try refuseOriginChangeInUnicode(path) }
        guard bytes[end] == UInt8(ascii: ":") else { return }
        let scheme = String(decoding: bytes[index..<end], as: UTF8.self).asciiLowercased
        let rest = bytes[bytes.index(after: end)...]
        if scheme == "http" || scheme == "https" || rest.starts(with: [slash, slash]) { throw originChange }
    }

    private static let originChange = SimpleNetworkingError.invalidURL(
        reason: "the path names another origin; use request(_:url:) to request an absolute URL on purpose")
    private static let asciiWhitespace = ByteSet(" \t\n\r\u{0B}\u{0C}".utf8)
    private static let asciiLetters = ByteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    private static let schemeBytes = asciiLetters.union("0123456789+-.".utf8)

    /// The same rule over Unicode text, for paths that start with non-ASCII characters.
    private static func refuseOriginChangeInUnicode(_ path: String) throws(SimpleNetworkingError) {
        let trimmed = path.trimmingCharacters(in: .whitespacesAndNewlines)
        let lowered = trimmed.lowercased()
        let leadingSlashes = trimmed.prefix { $0 == "/" || $0 == "\\" }.count
        let schemeEnd = lowered.firstIndex(of: ":")
        let scheme = schemeEnd.map { String(lowered[..<$0]) } ?? ""
        let looksLikeScheme =
            !scheme.isEmpty && scheme.first?.isLetter == true
            && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
        let namesScheme =
            looksLikeScheme
            && (scheme == "http" || scheme == "https" || lowered.dropFirst(scheme.count + 1).hasPrefix("//"))
        if leadingSlashes >= 2 || trimmed.hasPrefix("\\") || namesScheme { throw originChange }
    }

    /// `path` (encoded, starting with `/`) with its dot segments resolved as RFC 3986 section 5.2.4 does, so that
    /// what the server sees is what was checked (<doc:SecurityDefaults>).
    ///
    /// Literal `.` and `..` segments are resolved within the path: `/a/../b` is `/b`, appended to the base path. A
    /// `..` that would climb above the start, into or past the base URL's path, is refused, and so is a dot segment
    /// in any disguise a server might decode after the check: `%2e` in any case, `%2F` or `%5C` (a backslash is
    /// encoded as `%5C`) as a separator, or path parameters (`..;x`). Paths without a dot pass untouched, after one
    /// scan of their bytes.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)``.
    static func resolvingDotSegments(_ path: String) throws(SimpleNetworkingError) -> String {
        guard mayHoldDotSegment(path) else { return path }
        let slash = UInt8(ascii: "/")
        let bytes = Array(path.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var keptStarts: [Int] = []  // where each kept segment, with its leading "/", starts in `output`
        var endsInDirectory = false
        var start = bytes.index(after: bytes.startIndex)
        while start <= bytes.endIndex {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            switch dotSegment(bytes[start..<end]) {
            case nil:
                keptStarts.append(output.count)
                output.append(slash)
                output.append(contentsOf: bytes[start..<end])
                endsInDirectory = false
            case .current:
                endsInDirectory = true
            case .parent:
                guard let removed = keptStarts.popLast() else {
                    throw .invalidURL(reason: "the path's dot segments climb above the base URL's path")
                }
                output.removeSubrange(removed...)
                endsInDirectory = true
            case .disguised:
                throw .invalidURL(
                    reason: "the path holds an encoded or disguised dot segment (%2e, a backslash, %2F or %5C as a "
                        + "separator, or ..;); write . and .. literally")
            }
            start = end + 1
        }
        if endsInDirectory || output.isEmpty { output.append(slash) }
        return String(decoding: output, as: UTF8.self)
    }

    /// A dot segment, or a segment that hides one.
    private enum DotSegment {
        case current, parent, disguised
    }

    /// Whether a segment, or a piece after `%2F` or `%5C`, starts with `.` or `%2E`: without one there is no dot
    /// segment, and `/users/1/profile.json` passes in one scan without allocating.
    private static func mayHoldDotSegment(_ path: String) -> Bool {
        path.utf8.withContiguousStorageIfAvailable(mayHoldDotSegment) ?? mayHoldDotSegment(Array(path.utf8))
    }

    private static func mayHoldDotSegment<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool
    where Bytes.Index == Int {
        var atStart = true
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") {
                atStart = true
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex {
                let pair = (bytes[index + 1], bytes[index + 2] | 0x20)
                if pair == (UInt8(ascii: "2"), UInt8(ascii: "e")) {
                    if atStart { return true }
                    atStart = false
                } else {
                    atStart =
                        pair == (UInt8(ascii: "2"), UInt8(ascii: "f")) || pair == (UInt8(ascii: "5"), UInt8(ascii: "c"))
                }
                index += 3
                continue
            } else {
                if atStart, byte == UInt8(ascii: ".") { return true }
                atStart = false
            }
            index += 1
        }
        return false
    }

    private static func dotSegment(_ segment: ArraySlice<UInt8>) -> DotSegment? {
        let dot = UInt8(ascii: ".")
        if segment.count == 1, segment.first == dot { return .current }
        if segment.count == 2, segment.allSatisfy({ $0 == dot }) { return .parent }
        // Pieces between encoded separators (%2F, %5C), each up to its path parameters (";").
        var start = segment.startIndex
        var index = start
        while index <= segment.endIndex {
            let separatorLength = index < segment.endIndex ? encodedSeparatorLength(segment, at: index) : 0
            if index == segment.endIndex || separatorLength > 0 {
                let piece = segment[start..<index]
                let name = piece.firstIndex(of: UInt8(ascii: ";")).map { piece[..<$0] } ?? piece
                if isDotName(name) { return .disguised }
                index += max(separatorLength, 1)
                start = index
            } else {
                index += 1
            }
        }
        return nil
    }

    /// `%2F` or `%5C` (any case) at `index`: 3; otherwise 0.
    private static func encodedSeparatorLength(_ bytes: ArraySlice<UInt8>, at index: Int) -> Int {
        guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex else { return 0 }
        let pair = (bytes[index + 1], bytes[index + 2] | 0x20)
        return pair == (UInt8(ascii: "2"), UInt8(ascii: "f")) || pair == (UInt8(ascii: "5"), UInt8(ascii: "c")) ? 3 : 0
    }

    /// Whether `name` reads `.` or `..` once `%2E` escapes are decoded.
    private static func isDotName(_ name: ArraySlice<UInt8>) -> Bool {
        var dots = 0
        var index = name.startIndex
        while index < name.endIndex {
            if name[index] == UInt8(ascii: ".") {
                index += 1
            } else if name[index] == UInt8(ascii: "%"), index + 2 < name.endIndex, name[index + 1] == UInt8(ascii: "2"),
                name[index + 2] | 0x20 == UInt8(ascii: "e")
            {
                index += 3
            } else {
                return false
            }
            dots += 1
        }
        return dots == 1 || dots == 2
    }

    static func encode(_ text: String, allowing allowed: ByteSet, keepEscapes: Bool = true) -> String {
        // Text with nothing to encode, such as most paths, is returned as it is after one scan, without a copy.
        if text.utf8.allSatisfy({ allowed.contains($0) }) { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if allowed.contains(byte) {
                output.append(byte)
            } else if keepEscapes, byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit
            {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }
}

extension String {
    /// This text with ASCII letters lower-cased; itself, without a copy, when it has no upper-case ASCII letter.
    var asciiLowercased: String {
        guard utf8.contains(where: { (65...90).contains($0) }) else { return self }
        return String(decoding: utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
