import Foundation

extension CookieJar {
    /// The request a response answered, and the rules that turn its `Set-Cookie` fields into cookies (RFC 6265
    /// section 5.3 with its 6265bis update).
    package struct ReceivingContext: Sendable {
        /// The request's canonical host (see `CookieRules.host(of:)`).
        package var host: String
        /// Whether the request went over `https`.
        package var isSecure: Bool
        /// The default path of the request's path.
        package var defaultPath: String
        /// When the response arrived.
        package var now: Date

        package init(host: String, isSecure: Bool, defaultPath: String, now: Date) {
            self.host = host
            self.isSecure = isSecure
            self.defaultPath = defaultPath
            self.now = now
        }

        /// The context of a response to `url` at `now`, or `nil` for a URL that takes no cookies.
        package init?(url: URL, now: Date) {
            guard let host = CookieRules.host(of: url) else { return nil }
            self.init(
                host: host, isSecure: CookieRules.isSecure(url),
                defaultPath: CookieRules.defaultPath(CookieRules.requestPath(of: url)), now: now)
        }

        /// The cookie `setCookie` makes, with the bucket it belongs in, or `nil` when a rule rejects it. An expired
        /// cookie is returned: storing it deletes the cookie it names. A cookie the jar could not save and load
        /// back (see `Cookie.invalidReason`) is rejected here, so it never reaches the jar.
        package func cookie(from setCookie: SetCookie) -> (cookie: Cookie, bucket: String)? {
            guard let (domain, isHostOnly) = domain(for: setCookie.domain) else { return nil }
            if setCookie.isSecure, !isSecure { return nil }
            let path = setCookie.path ?? defaultPath
            if hasPrefix(setCookie.name, "__Secure-"), !(setCookie.isSecure && isSecure) { return nil }
            if hasPrefix(setCookie.name, "__Host-"),
                !(setCookie.isSecure && isSecure && setCookie.domain == nil && path == "/")
            {
                return nil
            }
            let cookie = Cookie(
                name: setCookie.name, value: setCookie.value, domain: domain, path: path,
                expires: setCookie.expiry(receivedAt: now), isSecure: setCookie.isSecure,
                isHTTPOnly: setCookie.isHTTPOnly, sameSite: setCookie.sameSite, isHostOnly: isHostOnly, creation: now)
            guard cookie.invalidReason == nil else { return nil }
            return (cookie, CookieRules.bucket(for: domain))
        }

        /// The cookie's domain and whether it is host-only, or `nil` when the `Domain` attribute is refused: an IP
        /// host, a public suffix other than the host itself, or a domain the host does not domain-match. A `Domain`
        /// naming the host when the host is a public suffix makes a host-only cookie, as browsers and Go's
        /// `net/http/cookiejar` do.
        package func domain(for attribute: String?) -> (domain: String, isHostOnly: Bool)? {
            guard let attribute else { return (host, true) }
            guard !attribute.isEmpty, !CookieRules.isIPAddress(host) else { return nil }
            if PublicSuffixList.isPublicSuffix(attribute) {
                return attribute == host ? (host, true) : nil
            }
            guard CookieRules.domainMatches(host: host, domain: attribute) else { return nil }
            return (attribute, false)
        }

        private func hasPrefix(_ name: String, _ prefix: String) -> Bool {
            name.utf8.count >= prefix.utf8.count && name.prefix(prefix.count).lowercased() == prefix.lowercased()
        }
    }
}
