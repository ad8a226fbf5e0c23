import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SimpleNetworking {
    /// The attempt's URL and its origin.
    func makeURL(for parts: SimpleRequest.Parts, base: BaseURL) throws(SimpleNetworkingError) -> (URL, Origin) {
        // Most requests have no query items: no array, no joined string.
        let query = parts.queryItems.isEmpty ? "" : parts.queryItems.map(URLEncoding.queryItem).joined(separator: "&")
        switch parts.target {
        case .absolute(let given):
            guard let origin = Origin(given) else {
                throw .invalidURL(reason: "only http and https URLs with a host can be requested")
            }
            guard given.user == nil, given.password == nil else {
                throw .invalidURL(reason: URLEncoding.userInfoReason)
            }
            guard let url = given.lowercasingScheme(origin.scheme) else {
                throw .invalidURL(reason: "the URL could not be rebuilt with a lower-case scheme")
            }
            guard !query.isEmpty else { return (url, origin) }
            let text = url.absoluteString
            guard let joined = URL(string: text + (url.query == nil ? "?" : "&") + query) else {
                throw .invalidURL(reason: "the query parameters could not be added to the URL")
            }
            return (joined, origin)
        case .path(let path):
            let url = try base.url(forPath: path, query: query)
            guard let origin = base.origin else {
                throw .invalidURL(reason: "the base URL must be an http or https URL with a host")
            }
            return (url, origin)
        }
    }
}

extension BaseURL {
    /// The URL of `path` under this base URL: the one builder of a path under a base URL, for the client's base URL
    /// and an endpoint's own alike.
    ///
    /// The path is percent-encoded where RFC 3986 requires it (existing `%XX` escapes kept), may carry a query after
    /// `?`, cannot name another origin (`//host`, `scheme:`) and cannot climb above the base path with dot segments
    /// (<doc:SecurityDefaults>); `query`, already encoded, is appended after the path's own.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)`` for an unusable base URL or a path that breaks
    ///   those rules.
    func url(forPath path: String, query: String = "") throws(SimpleNetworkingError) -> URL {
        guard let built else { return try build(forPath: path, query: query) }
        let key = BuiltURLs.Key(path: path, query: query)
        if let url = built.url(for: key) { return url }
        let url = try build(forPath: path, query: query)
        built.keep(url, for: key)
        return url
    }

    /// Builds the URL of `path` and `query` under this base URL, as ``url(forPath:query:)`` describes.
    private func build(forPath path: String, query: String) throws(SimpleNetworkingError) -> URL {
        var text = try prefix.get()
        try URLEncoding.refuseOriginChange(in: path)
        let (rawPath, rawQuery) = URLEncoding.split(path)
        let encodedPath = URLEncoding.encode(rawPath, allowing: URLEncoding.pathBytes)
        text += try URLEncoding.resolvingDotSegments(encodedPath.hasPrefix("/") ? encodedPath : "/" + encodedPath)
        let pathQuery = rawQuery.map { URLEncoding.encode($0, allowing: URLEncoding.queryBytes) } ?? ""
        switch (pathQuery.isEmpty, query.isEmpty) {
        case (true, true): break
        case (false, true): text += "?" + pathQuery
        case (true, false): text += "?" + query
        case (false, false): text += "?" + pathQuery + "&" + query
        }
        guard let url = URL(string: text) else {
            throw .invalidURL(reason: "the path does not form a valid URL with the base URL")
        }
        // The text is the checked base URL, then "/" and bytes percent-encoded for a path and a query: it cannot name
        // another origin, so that is not re-derived on every request (the path-template fuzz target checks it).
        assert(Origin(url) == origin, "a path left the base URL's origin")
        return url
    }
}
