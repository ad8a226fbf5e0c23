import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The scheme, host and port of a URL: two URLs with the same origin may share credentials.
struct Origin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.asciiLowercased, scheme == "http" || scheme == "https",
            let host = url.host?.asciiLowercased, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// Why URLSession cannot send to `host` here, or `nil`: checked by the URLSession transport, since other
    /// transports reach these hosts.
    ///
    /// On Linux, FoundationNetworking fails a URL with `badURL` unless libcurl reads the same host as `URL` does,
    /// and libcurl rewrites IPv6 literals (`[::1]`) and IPv4 addresses not written as four decimal numbers (`127.1`,
    /// `0x7f.0.0.1`, `2130706433`, `127.000.000.001`). See "URLSession on Linux" in the documentation.
    static func unsupportedHostReason(_ host: String) -> String? {
        #if canImport(FoundationNetworking) && !APPLE_BRANCH_CHECK
            if host.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "[") }) {
                return "URLSession on Linux cannot send to a host written as an IPv6 address ([...]); use a host name "
                    + "that resolves to it"
            }
            if Self.isNonCanonicalIPv4(host) {
                return "URLSession on Linux cannot send to an IPv4 address host not written as four decimal numbers "
                    + "(such as 127.1 or 0x7f.0.0.1); write it as a.b.c.d"
            }
        #endif
        return nil
    }

    /// Whether `host` is an IPv4 address by the WHATWG URL rules (its last label is a number) but not in the
    /// dotted-decimal form `a.b.c.d` with each part 0-255 and no leading zero.
    static func isNonCanonicalIPv4(_ host: String) -> Bool {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count > 1, labels.last?.isEmpty == true { labels.removeLast() }
        guard let last = labels.last, isNumber(last) else { return false }
        let canonical =
            !host.hasSuffix(".") && labels.count == 4
            && labels.allSatisfy { label in
                label.count <= 3 && label.allSatisfy(\.isASCIIDigit) && (label.count == 1 || label.first != "0")
                    && (Int(label) ?? 256) <= 255
            }
        return !canonical
    }

    /// A decimal number, or `0x` followed by hexadecimal digits: what the WHATWG URL rules read as a number.
    private static func isNumber(_ label: Substring) -> Bool {
        guard !label.isEmpty else { return false }
        if label.hasPrefix("0x") || label.hasPrefix("0X") { return label.dropFirst(2).allSatisfy(\.isHexDigit) }
        return label.allSatisfy(\.isASCIIDigit)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

extension URL {
    /// This URL with its scheme in lower case: FoundationNetworking refuses `HTTP://` with `unsupportedURL`.
    func lowercasingScheme(_ lowercased: String) -> URL? {
        guard let scheme, scheme != lowercased else { return self }
        let text = absoluteString
        guard text.hasPrefix(scheme) else { return nil }
        return URL(string: lowercased + text.dropFirst(scheme.count))
    }
}
