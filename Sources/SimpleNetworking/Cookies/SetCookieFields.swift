/// Splits `Set-Cookie` fields that arrived joined with ", " back into one value per field.
///
/// URLSession joins repeated response fields into one value with ", " (on Linux always; see "URLSession on Linux" in
/// the documentation). For `Set-Cookie` that loses the boundaries: an `Expires` date holds a comma, and by the
/// user-agent rules of RFC 6265 section 5.2 a cookie value and an attribute value may hold ", name=" too. So a comma
/// ends a field only where the joined text allows that reading best:
///
/// - After the field's attributes have begun (a `;` came before the comma), a comma followed by a cookie pair
///   (`name=`, the name a token or UTF-8 text) starts a new field: `a=1; Path=/, b=2` is two cookies, and a date's comma, which a
///   day number follows, never splits.
/// - Inside a cookie's own `name=value` pair, a comma never starts a field: `pref=en, session=x; Path=/` is one
///   cookie named `pref`, and its attribute list stays with it. Had the server sent two fields, `pref=en` and
///   `session=x; Path=/`, the joined text is the same: that input is ambiguous, read as one cookie so that a value a
///   server echoes cannot set another cookie.
/// - A nameless pair (`=`, `=x`) is a field of its own, which the parser then drops; it is never merged into the
///   cookie before it. So is a pair with no `=` (`six`), which cannot be a cookie: what follows it is split off.
/// - A quoted value (`name="..."`, RFC 6265 section 4.1.1) is skipped whole, and a comma with no space after it
///   (`b,az=qux`) never splits: the join always writes ", ".
///
/// <doc:Cookies> lists the inputs that stay ambiguous. Transports that keep fields apart (the
/// AsyncHTTPClient engine, `MockTransport`) never split.
package enum SetCookieFields {
    /// The fields in `joined`, each without surrounding spaces; empty fields are dropped.
    package static func split(_ joined: String) -> [String] {
        let bytes = Array(joined.utf8)
        var fields: [String] = []
        var field = FieldState(start: 0)
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: ";"):
                field.inAttributes = true
            case UInt8(ascii: "=") where !field.inAttributes && !field.sawEquals:
                field.sawEquals = true
                field.isNamed = !trimmed(bytes[field.start..<index]).isEmpty
                if let closingQuote = closingQuote(of: bytes, valueAfter: index) {
                    index = closingQuote + 1
                    continue
                }
            case UInt8(ascii: ","):
                guard let next = pairStart(in: bytes, after: index), next == .nameless || !field.holdsCookieValue
                else { break }
                append(bytes[field.start..<index], to: &fields)
                field = FieldState(start: index + 1)
            default:
                break
            }
            index += 1
        }
        append(bytes[field.start...], to: &fields)
        return fields
    }

    /// What is known of the field being read.
    private struct FieldState {
        var start: Int
        /// Whether a `;` has ended the field's `name=value` pair.
        var inAttributes = false
        /// Whether the pair's `=` has been read.
        var sawEquals = false
        /// Whether the pair has a name before its `=`.
        var isNamed = false

        /// Whether a comma here is inside a cookie's value, where it never ends the field.
        var holdsCookieValue: Bool { !inAttributes && sawEquals && isNamed }
    }

    /// The kind of pair that starts after a comma.
    private enum PairStart {
        /// `name=`, the name an RFC 9110 token or UTF-8 text.
        case named
        /// `=` with no name.
        case nameless
    }

    /// The pair that starts after the comma at `comma` and the space the join put after it (more spaces may
    /// follow), or `nil` when none does. A comma with no space after it was never a join (`a=1,b=2` is one value).
    private static func pairStart(in bytes: [UInt8], after comma: Int) -> PairStart? {
        var position = comma + 1
        guard position < bytes.count, bytes[position] == UInt8(ascii: " ") else { return nil }
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        let nameStart = position
        while position < bytes.count, isNameCharacter(bytes[position]) { position += 1 }
        let hasName = position > nameStart
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { return nil }
        return hasName ? .named : .nameless
    }

    /// The index of the quote that closes a quoted value starting after the `=` at `equals` (past optional
    /// spaces), or `nil` when the value is not quoted or the quote is never closed.
    private static func closingQuote(of bytes: [UInt8], valueAfter equals: Int) -> Int? {
        var position = equals + 1
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        return bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "\""))
    }

    private static func append(_ field: ArraySlice<UInt8>, to fields: inout [String]) {
        let trimmed = trimmed(field)
        if !trimmed.isEmpty { fields.append(String(decoding: trimmed, as: UTF8.self)) }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[first...last]
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// The characters of a cookie name that starts a field: RFC 9110 token characters (visible ASCII except the
    /// delimiters `"(),/:;<=>?@[\]{}`), and the bytes of UTF-8 text, which user agents read in names too.
    private static func isNameCharacter(_ byte: UInt8) -> Bool {
        byte >= 0x80 || (byte > 0x20 && byte < 0x7F && !delimiters.contains(byte))
    }

    private static let delimiters = Set(#""(),/:;<=>?@[\]{}"#.utf8)
}
