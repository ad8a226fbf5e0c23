import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SimpleNetworking {
    /// Builds the request for one attempt: URL, merged headers, method, body. Validates everything first, so a bad
    /// header or URL is a thrown error and nothing reaches the network.
    ///
    /// The base URL is read once here, so the URL and the origin rules of one attempt follow the same value even
    /// when a provider changes it meanwhile.
    func makeHTTPRequest(for parts: SimpleRequest.Parts) throws(SimpleNetworkingError) -> HTTPRequest {
        if let problem = parts.buildProblem { throw problem }
        if case .unusable(let reason) = parts.body { throw .invalidRequest(reason: reason) }
        let base = baseURLSource.current
        let (url, origin) = try makeURL(for: parts, base: base)
        try RequestValidation.validate(method: parts.method)
        var headers = origin == base.origin ? defaultHeaders.merging(parts.headers) : parts.headers
        var body: Data?
        var bodyFile: URL?
        switch parts.body {
        case .file(let file, let contentType):
            guard FileManager.default.isReadableFile(atPath: file.path) else {
                throw .invalidRequest(reason: "the body file \(file.lastPathComponent) cannot be read")
            }
            bodyFile = file
            if let contentType, !headers.contains("Content-Type") { headers["Content-Type"] = contentType.rawValue }
        case .multipart(let form):
            let (data, contentType) = try form.encodedInMemory()
            body = data
            headers["Content-Type"] = contentType.rawValue
        case .data(let data, let contentType):
            body = data
            if let contentType, !headers.contains("Content-Type") { headers["Content-Type"] = contentType.rawValue }
        case .json(let value):
            do {
                body = try configuration.encoder.encode(value)
            } catch {
                throw .invalidRequest(reason: "the JSON body could not be encoded (\(type(of: value)))")
            }
            if !headers.contains("Content-Type") { headers["Content-Type"] = MediaType.json.rawValue }
        case .unusable, nil:
            break
        }
        try RequestValidation.validate(headers, allowsHostHeader: configuration.allowsHostHeader)
        return HTTPRequest(method: parts.method, url: url, headers: headers, body: body, bodyFile: bodyFile)
    }

    /// The transport's options for an attempt of `parts`, whose timeout the attempt has already worked out
    /// (`Configuration.attemptTimeout(requested:)`, clipped to the deadline): a value at or below
    /// zero is what is left of a deadline that has just passed, and the attempt times out at once.
    func transportOptions(for parts: SimpleRequest.Parts) -> TransportOptions {
        TransportOptions(
            timeout: parts.timeout ?? configuration.attemptTimeout(requested: nil),
            maximumResponseBodySize: parts.safety.maximumResponseBodySize ?? configuration.maximumResponseBodySize)
    }
}

// MARK: - The URL

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

// MARK: - Built URLs

/// The URLs a client's base URL has built, by path and query, so that a request for a path already built reuses its
/// URL instead of encoding the path and parsing the text again: about 5,000 instructions on Linux, most of them in
/// `URL(string:)` (<doc:Performance>).
///
/// Building a URL from a base URL, a path and a query is a pure function of the three, and a new base URL (a
/// provider's next value) comes with a new cache, so a kept URL is always the one building would give. At most
/// ``capacity`` URLs are kept: past that the cache starts over, so paths that never repeat (an identifier in each)
/// cost one lookup and one insertion each, and memory stays bounded.
final class BuiltURLs: Sendable {
    /// A path and an already-encoded query, as `BaseURL.url(forPath:query:)` takes them.
    struct Key: Hashable, Sendable {
        let path: String
        let query: String
    }

    /// The most URLs kept at once.
    static let capacity = 64

    private let urls = Locked<[Key: URL]>([:])

    /// The URL built for `key`, if it is kept.
    func url(for key: Key) -> URL? {
        urls.withLock { $0[key] }
    }

    /// Keeps `url` as the one built for `key`, starting over when ``capacity`` URLs are kept.
    func keep(_ url: URL, for key: Key) {
        urls.withLock { urls in
            if urls.count >= Self.capacity { urls.removeAll(keepingCapacity: true) }
            urls[key] = url
        }
    }
}
