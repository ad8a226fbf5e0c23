import Foundation

/// One `Set-Cookie` field taken apart by RFC 6265 section 5.2 (with its 6265bis update), before the jar decides
/// whether to store it.
package struct SetCookie: Sendable, Equatable {
    /// The cookie name, without surrounding whitespace.
    package var name: String
    /// The cookie value, without surrounding whitespace.
    package var value: String
    /// The `Expires` date, when it was a date.
    package var expires: Date?
    /// The `Max-Age` in seconds, clamped to the range of `Int64`; it wins over `Expires`.
    package var maxAge: Int64?
    /// The `Domain` attribute, lowercased and without one leading dot; `nil` when absent or empty. An empty string
    /// here came from a lone `.`, which no host matches.
    package var domain: String?
    /// The `Path` attribute, when it starts with `/`; otherwise the URL's default path applies.
    package var path: String?
    /// The `Secure` attribute.
    package var isSecure = false
    /// The `HttpOnly` attribute.
    package var isHTTPOnly = false
    /// The `SameSite` attribute, when it named a known value.
    package var sameSite: SameSite?

    /// When a cookie received at `now` expires: `Max-Age` wins over `Expires`, a `Max-Age` of zero or less means
    /// at once (`distantPast`), and no date is ever more than ``CookieJar/maximumLifetime`` ahead; `nil` for a
    /// session cookie.
    package func expiry(receivedAt now: Date) -> Date? {
        let limit = now.addingTimeInterval(CookieJar.maximumLifetime)
        if let maxAge {
            guard maxAge > 0 else { return .distantPast }
            return min(now.addingTimeInterval(TimeInterval(maxAge)), limit)
        }
        return expires.map { min($0, limit) }
    }
}

/// Takes `Set-Cookie` fields apart by the user-agent rules of RFC 6265 section 5.2, with the 6265bis update; see
/// ``SetCookie``.
///
/// The field is read as octets, not as the ASCII-only grammar that binds servers (section 4.1.1): a name or value
/// may hold any UTF-8 text, as browsers keep it. A field that holds a control character other than tab (NUL, CR,
/// LF, DEL, ...) is ignored whole, as RFC 6265bis says.
package enum SetCookieParser {
    /// The longest attribute value read; a longer one is ignored (RFC 6265bis).
    static let maximumAttributeValueSize = 1024

    /// The cookie in `field`, or `nil` when it is not one: a control character other than tab anywhere, no `=` in
    /// the first pair, an empty name, or more than ``CookieJar/maximumCookieSize`` bytes of name and value.
    package static func parse(_ field: String) -> SetCookie? {
        let bytes = Array(field.utf8)
        guard !bytes.contains(where: CookieText.isForbiddenControl) else { return nil }
        let parts = bytes.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[(equals + 1)...])
        guard !name.isEmpty, name.count + value.count <= CookieJar.maximumCookieSize else { return nil }
        var cookie = SetCookie(name: text(name), value: text(value))
        for attribute in parts.dropFirst() {
            let equals = attribute.firstIndex(of: UInt8(ascii: "="))
            let attributeName = trimmed(attribute[..<(equals ?? attribute.endIndex)])
            let attributeValue = equals.map { trimmed(attribute[($0 + 1)...]) } ?? []
            guard attributeValue.count <= maximumAttributeValueSize else { continue }
            apply(lowercasedASCII(attributeName), text(attributeValue), to: &cookie)
        }
        return cookie
    }

    private static func apply(_ name: String, _ value: String, to cookie: inout SetCookie) {
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { cookie.expires = date }
        case "max-age":
            if let seconds = maxAge(value) { cookie.maxAge = seconds }
        case "domain":
            guard !value.isEmpty else { return }
            let lowered = lowercasedASCII(value.utf8[...])
            cookie.domain = lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
        case "path":
            cookie.path = value.hasPrefix("/") ? value : nil
        case "secure":
            cookie.isSecure = true
        case "httponly":
            cookie.isHTTPOnly = true
        case "samesite":
            cookie.sameSite = SameSite.parse(value[...])
        default:
            break
        }
    }

    /// `Max-Age`: an optional `-` then digits; anything else is ignored. Huge values are clamped, never trapped.
    private static func maxAge(_ text: String) -> Int64? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard let magnitude = Int64(digits) else { return negative ? .min : .max }
        return negative ? -magnitude : magnitude
    }

    /// The bytes without the spaces and tabs around them (RFC 6265bis's whitespace).
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[first...last]
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// ASCII letters lowercased, every other byte kept: attribute names and domains compare without regard to ASCII
    /// case only, so no Unicode case mapping can turn a foreign name into a known one.
    private static func lowercasedASCII(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

/// What a cookie's name, value, domain and path may hold: the one set of rules that `Set-Cookie` parsing, the jar's
/// `add` and `load`, and the saved file share, so that whatever the jar stores, it can save and load back.
enum CookieText {
    /// A control character RFC 6265bis refuses in a `Set-Cookie` field: `%x00-08 / %x0A-1F / %x7F` (tab is allowed).
    static func isForbiddenControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// A name: not empty, without `=`, `;` or a forbidden control character; any other UTF-8 text.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && !name.utf8.contains { isForbiddenControl($0) || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ";") }
    }

    /// A value: without `;` or a forbidden control character; any other UTF-8 text.
    static func isValidValue(_ value: String) -> Bool {
        !value.utf8.contains { isForbiddenControl($0) || $0 == UInt8(ascii: ";") }
    }

    /// A domain: lowercase-insensitive ASCII labels separated by single dots, with no space, `/`, leading dot or
    /// empty label (a cookie from host `..` has none).
    static func isValidDomain(_ domain: String) -> Bool {
        let bytes = Array(domain.utf8)
        guard let first = bytes.first, first != UInt8(ascii: "."),
            !bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: ";") })
        else { return false }
        return !zip(bytes, bytes.dropFirst()).contains { $0 == UInt8(ascii: ".") && $1 == UInt8(ascii: ".") }
    }

    /// A path: starts with `/`, without `;` or a forbidden control character; any other UTF-8 text.
    static func isValidPath(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.utf8.contains { isForbiddenControl($0) || $0 == UInt8(ascii: ";") }
    }
}
