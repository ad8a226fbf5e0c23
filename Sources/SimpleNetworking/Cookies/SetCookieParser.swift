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

/// Takes `Set-Cookie` fields apart; see ``SetCookie``.
package enum SetCookieParser {
    /// The longest attribute value read; a longer one is ignored (RFC 6265bis).
    static let maximumAttributeValueSize = 1024

    /// The cookie in `field`, or `nil` when it is not one: no `=` in the first pair, an empty name, a control or
    /// non-ASCII character in the name or value, or more than ``CookieJar/maximumCookieSize`` bytes of name and
    /// value.
    package static func parse(_ field: String) -> SetCookie? {
        let parts = field.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= CookieJar.maximumCookieSize,
            isValidName(name), isValidValue(value)
        else { return nil }
        var cookie = SetCookie(name: String(name), value: String(value))
        for attribute in parts.dropFirst() {
            let equals = attribute.firstIndex(of: "=")
            let attributeName = trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let attributeValue = equals.map { trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
            guard attributeValue.utf8.count <= maximumAttributeValueSize else { continue }
            apply(attributeName, attributeValue, to: &cookie)
        }
        return cookie
    }

    private static func apply(_ name: String, _ value: Substring, to cookie: inout SetCookie) {
        switch name {
        case "expires":
            if let date = CookieDate.parse(value) { cookie.expires = date }
        case "max-age":
            if let seconds = maxAge(value) { cookie.maxAge = seconds }
        case "domain":
            guard !value.isEmpty else { return }
            let lowered = value.lowercased()
            cookie.domain = lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
        case "path":
            cookie.path = value.hasPrefix("/") ? String(value) : nil
        case "secure":
            cookie.isSecure = true
        case "httponly":
            cookie.isHTTPOnly = true
        case "samesite":
            cookie.sameSite = SameSite.parse(value)
        default:
            break
        }
    }

    /// `Max-Age`: an optional `-` then digits; anything else is ignored. Huge values are clamped, never trapped.
    private static func maxAge(_ text: Substring) -> Int64? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : text
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        guard let magnitude = Int64(digits) else { return negative ? .min : .max }
        return negative ? -magnitude : magnitude
    }

    /// Whitespace RFC 6265bis strips: space and horizontal tab, and the CR and LF some servers leave.
    private static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return text[first...last]
    }

    /// A name: visible ASCII and inner spaces, without `=` or `;`.
    static func isValidName(_ name: some StringProtocol) -> Bool {
        name.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: ";") }
    }

    /// A value: visible ASCII and inner spaces, without `;`. Control characters (tab included) and non-ASCII bytes
    /// make the whole cookie invalid, as in OkHttp.
    static func isValidValue(_ value: some StringProtocol) -> Bool {
        value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") }
    }
}
