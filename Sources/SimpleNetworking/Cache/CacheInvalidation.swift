import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which stored responses a response to an unsafe request makes invalid (RFC 9111 section 4.4).
///
/// A response with a non-error status (2xx or 3xx) to a request whose method is not safe (anything but `GET`,
/// `HEAD`, `OPTIONS` and `TRACE`, RFC 9110 section 9.2.1, so unknown methods too) invalidates its target URI, and
/// the URIs of its `Location` and `Content-Location` fields when they have the same origin as the target (relative
/// references resolved against it): another origin's are left alone, so that no server can evict a third party's
/// responses. Every stored variant of an invalidated URI goes. The URIs come as ``primaryKey(for:)`` writes them.
package enum CacheInvalidation {
    /// The methods RFC 9110 section 9.2.1 defines as safe.
    package static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    /// The URIs whose stored responses a response invalidates, target first, as primary keys (``primaryKey(for:)``),
    /// without repeats; empty when it invalidates none.
    /// - Parameters:
    ///   - method: The request's method.
    ///   - requestURL: The request's URL (the target URI).
    ///   - status: The response's status code.
    ///   - responseHeaders: The response's header fields.
    /// - Returns: The primary keys to invalidate.
    package static func invalidatedKeys(
        method: HTTPMethod, requestURL: URL, status: Int, responseHeaders: HTTPHeaders
    ) -> [String] {
        guard !safeMethods.contains(method.rawValue), (200..<400).contains(status) else { return [] }
        var keys = [primaryKey(for: requestURL)]
        let origin = Origin(requestURL)
        for name in ["Location", "Content-Location"] {
            guard let value = responseHeaders[name]?.withoutSurroundingSpacesAndTabs,
                !value.isEmpty, let resolved = URL(string: value, relativeTo: requestURL)?.absoluteURL,
                let origin, Origin(resolved) == origin
            else { continue }
            let key = primaryKey(for: resolved)
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// The primary cache key of a URL (RFC 9111 section 2): the absolute URL without its fragment, its scheme and
    /// host in lower case and a default port (80 for `http`, 443 for `https`) left out, so that spellings of one
    /// URI share a key; the path and query stay as they are (they are case-sensitive).
    /// - Parameter url: An absolute URL.
    /// - Returns: The key.
    package static func primaryKey(for url: URL) -> String {
        let text = url.absoluteString
        return keyAsSpelled(text) ?? primaryKeyByComponents(for: url)
    }

    /// `text` without its fragment when that is already its primary key: an `http` or `https` URL whose scheme and
    /// authority hold no upper-case letter, no user, no percent sign, no IP version 6 address and no default port;
    /// `nil` otherwise, for ``primaryKeyByComponents(for:)``. A lookup reads its key so, without taking the URL apart
    /// (<doc:Performance>, "HTTP cache"); a test checks that both give the same key.
    private static func keyAsSpelled(_ text: String) -> String? {
        switch text.utf8.withContiguousStorageIfAvailable(spelling) {
        case .whole: text
        case .cut(let end): String(decoding: text.utf8.prefix(end), as: UTF8.self)
        case .notAKey, nil: nil
        }
    }

    /// How a URL's text stands to its primary key.
    private enum Spelling {
        /// The text is the key.
        case whole
        /// The key is the text up to this byte offset (its fragment left out).
        case cut(at: Int)
        /// The text must be taken apart.
        case notAKey
    }

    /// How the URL text `bytes` stands to its primary key (see ``keyAsSpelled(_:)``).
    private static func spelling(_ bytes: UnsafeBufferPointer<UInt8>) -> Spelling {
        guard let authorityStart = schemeLength(bytes) else { return .notAKey }
        var authorityEnd = bytes.count
        var colon: Int?
        for index in authorityStart..<bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                authorityEnd = index
                break
            }
            if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "@")
                || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "[") || (byte == UInt8(ascii: ":") && colon != nil)
            {
                return .notAKey
            }
            if byte == UInt8(ascii: ":") { colon = index }
        }
        guard authorityEnd > authorityStart, colon != authorityStart else { return .notAKey }
        if let colon {
            // A port of digits, without a leading zero, other than the scheme's default.
            let port = bytes[(colon + 1)..<authorityEnd]
            let isDefault = port.elementsEqual((authorityStart == 8 ? "443" : "80").utf8)
            guard let first = port.first, first != UInt8(ascii: "0"), !isDefault,
                port.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return .notAKey }
        }
        return bytes[authorityEnd...].firstIndex(of: UInt8(ascii: "#")).map(Spelling.cut) ?? .whole
    }

    /// Where the authority of an `http://` or `https://` URL starts (7 or 8); `nil` for any other start.
    private static func schemeLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        func starts(_ prefix: StaticString) -> Bool {
            bytes.count >= prefix.utf8CodeUnitCount
                && zip(bytes, UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
                    .allSatisfy { $0 == $1 }
        }
        if starts("https://") { return 8 }
        if starts("http://") { return 7 }
        return nil
    }

    /// The primary key as ``primaryKey(for:)`` describes it, by taking the URL apart.
    package static func primaryKeyByComponents(for url: URL) -> String {
        let absolute = url.absoluteURL
        guard var components = URLComponents(url: absolute, resolvingAgainstBaseURL: false) else {
            return absolute.absoluteString
        }
        components.percentEncodedFragment = nil
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        if let host = components.percentEncodedHost { components.percentEncodedHost = host.lowercased() }
        if (scheme == "http" && components.port == 80) || (scheme == "https" && components.port == 443) {
            components.port = nil
        }
        return components.string ?? absolute.absoluteString
    }
}
