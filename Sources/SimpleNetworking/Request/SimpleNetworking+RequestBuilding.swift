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
        // The default headers of the moment, read from their lock (`defaultHeaders` is their public face).
        var headers = origin == base.origin ? storedDefaultHeaders.current.merging(parts.headers) : parts.headers
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

// MARK: - The base URL of the moment

/// Where a client's base URL comes from: a fixed value checked once, or a provider asked each time an attempt is
/// built (<doc:GettingStarted>).
struct BaseURLSource: Sendable {
    private let provider: (@Sendable () -> URL)?
    /// The fixed base URL, or the provider's last value, with its checks.
    private let lastChecked: Locked<BaseURL>

    /// A base URL that never changes, checked now.
    init(fixed url: URL) {
        provider = nil
        lastChecked = Locked(BaseURL(url, caching: true))
    }

    /// A base URL asked of `provider` each time; its first value is checked now.
    init(provider: @escaping @Sendable () -> URL) {
        self.provider = provider
        lastChecked = Locked(BaseURL(provider(), caching: true))
    }

    /// The base URL as it is now: the provider's value, checked only when it differs from the last one.
    var current: BaseURL {
        guard let provider else { return lastChecked.current }
        let url = provider()  // asked outside the lock: the provider may take locks of its own
        let last = lastChecked.current
        if last.url == url { return last }
        let checked = BaseURL(url, caching: true)
        lastChecked.set(checked)
        return checked
    }

    /// The URL requests are appended to now.
    var url: URL {
        provider?() ?? lastChecked.current.url
    }
}

// MARK: - Validation

/// RFC 9110 rules for what may be put on the wire, checked before anything is sent.
///
/// URLSession on Linux writes CR and LF in header values and methods straight to the socket (header injection),
/// and `setValue(_:forHTTPHeaderField:)` drops bad values silently; so the library checks first and throws.
enum RequestValidation {
    /// `tchar`: the characters of an RFC 9110 token.
    private static let tokenBytes = ByteSet(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(tokenBytes.contains)
    }

    /// A field value may hold visible characters, spaces, tabs and obs-text; never CR, LF, NUL or other controls.
    static func firstForbiddenByte(inValue value: String) -> UInt8? {
        value.utf8.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    static func validate(method: HTTPMethod) throws(SimpleNetworkingError) {
        guard isToken(method.rawValue) else {
            throw .invalidRequest(reason: "the method is not a valid HTTP token")
        }
    }

    /// Checks every field in one pass: a token name, a value without control characters, and no framing header.
    /// - Parameters:
    ///   - headers: The merged headers of one attempt, default headers included.
    ///   - allowsHostHeader: Whether a caller's `Host` is sent (``SimpleNetworking/Configuration/allowsHostHeader``).
    static func validate(_ headers: HTTPHeaders, allowsHostHeader: Bool) throws(SimpleNetworkingError) {
        for field in headers {
            guard isToken(field.name) else {
                throw .invalidRequest(reason: "a header name is not a valid HTTP token (\(printable(field.name)))")
            }
            if let byte = firstForbiddenByte(inValue: field.value) {
                throw .invalidRequest(
                    reason: "the value of header \(field.name) contains the control character 0x\(hex(byte))")
            }
            if isFramingHeader(field.name, allowsHost: allowsHostHeader) {
                throw .invalidRequest(reason: framingReason(field.name))
            }
        }
    }

    /// Whether `name` is a field that frames the message or belongs to the connection, which the library and
    /// URLSession set themselves: `Content-Length`, `Transfer-Encoding`, `Connection`, `Keep-Alive`, `Upgrade`,
    /// `TE`, `Trailer`, `Proxy-Connection` and `Host`. Set by a caller, libcurl trusts them, so a `Content-Length`
    /// shorter than the body smuggles a second request onto the connection (<doc:SecurityDefaults>).
    ///
    /// One length switch and at most two byte comparisons per field, without allocating.
    static func isFramingHeader(_ name: String, allowsHost: Bool) -> Bool {
        switch name.utf8.count {
        case 2: return name.equalsIgnoringASCIICase("TE")
        case 4: return !allowsHost && name.equalsIgnoringASCIICase("Host")
        case 7: return name.equalsIgnoringASCIICase("Upgrade") || name.equalsIgnoringASCIICase("Trailer")
        case 10: return name.equalsIgnoringASCIICase("Connection") || name.equalsIgnoringASCIICase("Keep-Alive")
        case 14: return name.equalsIgnoringASCIICase("Content-Length")
        case 16: return name.equalsIgnoringASCIICase("Proxy-Connection")
        case 17: return name.equalsIgnoringASCIICase("Transfer-Encoding")
        default: return false
        }
    }

    private static func framingReason(_ name: String) -> String {
        let remedy =
            name.equalsIgnoringASCIICase("Host")
            ? "set Configuration.allowsHostHeader to send your own Host" : "the library frames the body itself"
        return "the header \(name) controls message framing or the connection and cannot be set; \(remedy)"
    }

    /// A name with anything outside printable ASCII escaped, safe to put in an error message.
    private static func printable(_ name: String) -> String {
        name.utf8.map { (0x21...0x7E).contains($0) ? String(UnicodeScalar($0)) : "\\x" + hex($0) }.joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
