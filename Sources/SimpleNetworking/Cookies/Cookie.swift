import Foundation

/// One cookie in a ``CookieJar``, as RFC 6265 stores it.
///
/// The jar makes these from `Set-Cookie` fields; build one yourself to seed a jar with ``CookieJar/add(_:)``.
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// The name.
    public var name: String
    /// The value, exactly as the server sent it (double quotes included, when it had them).
    public var value: String
    /// The domain, lowercased and without a leading dot: the host for a host-only cookie, else the `Domain`
    /// attribute.
    public var domain: String
    /// The path: the `Path` attribute, or the default path of the URL that set the cookie.
    public var path: String
    /// When the cookie expires; `nil` for a session cookie, which lives as long as the jar and is never saved.
    public var expires: Date?
    /// Whether the cookie goes only over `https` (the `Secure` attribute).
    public var isSecure: Bool
    /// Whether the server marked it `HttpOnly`. Stored and shown; a client that is not a browser sends it as any
    /// other cookie.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, when it named a known value. Stored and shown, not enforced: an API client has no
    /// notion of the site a request comes from.
    public var sameSite: SameSite?
    /// Whether the cookie goes only to the host that set it (no `Domain` attribute), not to its subdomains.
    public var isHostOnly: Bool
    /// When the cookie was first stored; an update keeps it. Among cookies with paths of the same length, older
    /// ones are sent first. A jar keeps it, and ``expires``, to the whole second.
    public var creation: Date

    /// Creates a cookie.
    /// - Parameters:
    ///   - name: The name; not empty.
    ///   - value: The value.
    ///   - domain: The host (host-only) or domain it goes to; a leading dot is dropped and it is lowercased.
    ///   - path: The path it goes to. Default: `/`.
    ///   - expires: When it expires; `nil` (the default) for a session cookie.
    ///   - isSecure: Whether it goes only over `https`. Default: `false`.
    ///   - isHTTPOnly: The `HttpOnly` flag. Default: `false`.
    ///   - sameSite: The `SameSite` attribute. Default: `nil`.
    ///   - isHostOnly: Whether it goes only to `domain` itself. Default: `true`.
    ///   - creation: When it was made. Default: now.
    public init(
        name: String, value: String, domain: String, path: String = "/", expires: Date? = nil, isSecure: Bool = false,
        isHTTPOnly: Bool = false, sameSite: SameSite? = nil, isHostOnly: Bool = true, creation: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = Self.canonicalDomain(domain)
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.isHostOnly = isHostOnly
        self.creation = creation
    }

    /// Whether the cookie is a session cookie: no expiry, never saved to a file.
    public var isSession: Bool { expires == nil }

    /// `name=value`, the form the cookie takes in a `Cookie` header.
    public var headerPair: String { name + "=" + value }

    /// The cookie as a `Set-Cookie` value, with its value redacted: safe to log.
    public var description: String {
        var text = "\(name)=<redacted>; Domain=\(domain); Path=\(path)"
        if let expires { text += "; Expires=\(expires)" }
        if isSecure { text += "; Secure" }
        if isHTTPOnly { text += "; HttpOnly" }
        if let sameSite { text += "; SameSite=\(sameSite.rawValue)" }
        if isHostOnly { text += " (host-only)" }
        return text
    }

    /// Whether the cookie has expired at `now`.
    func isExpired(at now: Date) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// The identity of a cookie in a jar: a new cookie with the same name, domain and path replaces the old one.
    var key: Key { Key(name: name, domain: domain, path: path) }

    /// The name, domain and path of a cookie.
    struct Key: Hashable, Sendable {
        var name: String
        var domain: String
        var path: String
    }

    static func canonicalDomain(_ domain: String) -> String {
        let lowered = domain.lowercased()
        return lowered.hasPrefix(".") ? String(lowered.dropFirst()) : lowered
    }

    /// Why the cookie cannot be stored, or `nil`: an empty name, a control character other than tab, `=` in the
    /// name or `;` in the name, value or path, more than ``CookieJar/maximumCookieSize`` bytes of name and value, an
    /// empty or malformed domain, or a path not starting with `/`. `Set-Cookie` parsing, ``CookieJar/add(_:)`` and
    /// ``CookieJar/load(from:)`` all apply it, so a stored cookie always saves and loads back.
    var invalidReason: String? {
        if name.isEmpty { return "a cookie has an empty name" }
        if name.utf8.count + value.utf8.count > CookieJar.maximumCookieSize {
            return "a cookie is larger than \(CookieJar.maximumCookieSize) bytes"
        }
        if !CookieText.isValidName(name) || !CookieText.isValidValue(value) {
            return "a cookie name or value holds a character a Cookie header cannot carry"
        }
        if !CookieText.isValidDomain(domain) { return "a cookie has an empty or malformed domain" }
        if !CookieText.isValidPath(path) {
            return "a cookie path does not start with / or holds a control character or ;"
        }
        return nil
    }
}

/// The `SameSite` attribute of a cookie: a set of named values, compared without regard to case when parsed.
public struct SameSite: Sendable, Hashable, RawRepresentable {
    /// The attribute's value as written in the canonical case: `Strict`, `Lax` or `None`.
    public var rawValue: String

    /// Creates a value; prefer the static members.
    /// - Parameter rawValue: The value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// `SameSite=Strict`.
    public static let strict = SameSite(rawValue: "Strict")
    /// `SameSite=Lax`.
    public static let lax = SameSite(rawValue: "Lax")
    /// `SameSite=None`: sent with cross-site requests too. Named so that it cannot be mistaken for a missing value.
    public static let unrestricted = SameSite(rawValue: "None")

    /// The known value named by `text`, compared without regard to case; `nil` for anything else.
    static func parse(_ text: Substring) -> SameSite? {
        [SameSite.strict, .lax, .unrestricted].first { $0.rawValue.lowercased() == text.lowercased() }
    }
}
