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
