import Foundation

/// The matching rules of RFC 6265 section 5.1: canonical hosts, domain-match, default path and path-match.
package enum CookieRules {
    /// The host of `url` as cookies see it: lowercased, without IPv6 brackets or one trailing dot; `nil` for a URL
    /// that is not `http` or `https`, has no host, or has a host no cookie can name (an empty label, as in `..`).
    package static func host(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return CookieText.isValidDomain(host) ? host : nil
    }

    /// Whether `url` is `https`, the only scheme `Secure` cookies come from and go to (loopback included).
    package static func isSecure(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "https"
    }

    /// Whether `host` is an IP address, which takes host-only cookies only: an IPv6 address, or a name whose last
    /// label is a number (an IPv4 address by the URL rules).
    package static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        guard let last = host.split(separator: ".").last else { return false }
        return last.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    /// RFC 6265 domain-match: `host` is `domain`, or ends with `.` and `domain`, and is not an IP address.
    package static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return !domain.isEmpty && host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// The path of `url` as sent: percent-encoded, `/` when empty.
    package static func requestPath(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    /// RFC 6265 default-path: the request path up to, not including, its last `/`; `/` when that leaves nothing
    /// or the path does not start with `/`.
    package static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// RFC 6265 path-match: the paths are equal, or `cookiePath` is a prefix of `requestPath` that ends with `/`
    /// or is followed there by `/`.
    package static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if requestPath.utf8.count == cookiePath.utf8.count || cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// The key of the bucket that holds cookies for `domain`: its registrable domain (`example.co.uk`), or the
    /// address itself for an IP host. Every cookie that can match a host lives in that host's bucket.
    package static func bucket(for domain: String) -> String {
        isIPAddress(domain) ? domain : PublicSuffixList.registrableDomain(of: domain)
    }
}
