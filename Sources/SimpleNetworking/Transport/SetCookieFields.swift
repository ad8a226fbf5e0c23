/// Splits `Set-Cookie` fields that arrived joined with ", " back into one value per field.
///
/// URLSession joins repeated response fields into one value with ", " (on Linux always; see "URLSession on Linux" in
/// the documentation). For `Set-Cookie` that loses the boundaries, because an `Expires` date holds a comma
/// (`Expires=Wed, 21 Oct 2015 07:28:00 GMT`) and a cookie value may too. A comma therefore ends a field only when what
/// follows it, after optional spaces, is a cookie name and `=`: a date goes on with a day number and a space, so it
/// never does. A quoted cookie value (`name="..."`, RFC 6265 section 4.1.1) is skipped whole.
package enum SetCookieFields {
    /// The fields in `joined`, each without surrounding spaces; empty fields are dropped.
    package static func split(_ joined: String) -> [String] {
        let bytes = Array(joined.utf8)
        var fields: [String] = []
        var start = 0
        var index = skipCookiePair(bytes, from: 0)
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: ","), startsCookiePair(bytes, at: index + 1) else {
                index += 1
                continue
            }
            append(bytes[start..<index], to: &fields)
            start = index + 1
            index = skipCookiePair(bytes, from: start)
        }
        append(bytes[start...], to: &fields)
        return fields
    }

    private static func append(_ field: ArraySlice<UInt8>, to fields: inout [String]) {
        let trimmed = field.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        if !trimmed.isEmpty { fields.append(String(decoding: trimmed, as: UTF8.self)) }
    }

    /// Whether a cookie pair starts at `index`: optional spaces, a token, optional spaces, `=`.
    private static func startsCookiePair(_ bytes: [UInt8], at index: Int) -> Bool {
        var position = index
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        let nameStart = position
        while position < bytes.count, isTokenCharacter(bytes[position]) { position += 1 }
        guard position > nameStart else { return false }
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        return position < bytes.count && bytes[position] == UInt8(ascii: "=")
    }

    /// The index just past the cookie pair's name, `=` and a quoted value when it is one; otherwise past the `=`,
    /// or `index` itself when no `=` follows the name.
    private static func skipCookiePair(_ bytes: [UInt8], from index: Int) -> Int {
        let stops: [UInt8] = [UInt8(ascii: "="), UInt8(ascii: ";"), UInt8(ascii: ",")]
        guard let equals = bytes[index...].firstIndex(where: stops.contains), bytes[equals] == UInt8(ascii: "=")
        else { return index }
        var position = equals + 1
        while position < bytes.count, isSpace(bytes[position]) { position += 1 }
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\""),
            let closing = bytes[(position + 1)...].firstIndex(of: UInt8(ascii: "\""))
        else { return equals + 1 }
        return closing + 1
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// RFC 9110 token characters: visible ASCII except the delimiters `"(),/:;<=>?@[\]{}`.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && !delimiters.contains(byte)
    }

    private static let delimiters = Set(#""(),/:;<=>?@[\]{}"#.utf8)
}
