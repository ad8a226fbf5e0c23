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
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = url.port ?? (scheme == "https" ? 443 : 80)
    }
}

/// The base URL, checked once, as the text every request path is appended to.
struct BaseURL: Sendable {
    /// `scheme://authority/path` without a trailing slash, or the reason the base URL is unusable.
    let prefix: Result<String, SimpleNetworkingError>
    let origin: Origin?

    init(_ url: URL) {
        origin = Origin(url)
        guard origin != nil else {
            prefix = .failure(.invalidURL(reason: "the base URL must be an http or https URL with a host"))
            return
        }
        guard url.query == nil, url.fragment == nil else {
            prefix = .failure(.invalidURL(reason: "the base URL must not have a query or fragment"))
            return
        }
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        prefix = .success(text)
    }
}

extension SimpleNetworking {
    /// Builds the `URLRequest` for one attempt: URL, merged headers, method, body. Validates everything first, so
    /// a bad header or URL is a thrown error and nothing reaches the network.
    func makeURLRequest(for parts: SimpleRequest.Parts) throws(SimpleNetworkingError) -> URLRequest {
        let url = try makeURL(for: parts)
        try RequestValidation.validate(method: parts.method)
        var headers = Origin(url) == base.origin ? defaultHeaders.merging(parts.headers) : parts.headers
        var request = URLRequest(url: url)
        request.httpMethod = parts.method.rawValue
        if parts.method == .get || parts.method == .head, let body = parts.body, !body.isEmpty {
            throw .invalidRequest(
                reason: "a \(parts.method.rawValue) request cannot carry a body: URLSession on Linux does not send "
                    + "it; put the data in the query, or use POST")
        }
        switch parts.body {
        case .data(let data, let contentType):
            request.httpBody = data
            if let contentType, !headers.contains("Content-Type") { headers["Content-Type"] = contentType.rawValue }
        case .json(let value):
            do {
                request.httpBody = try configuration.encoder.encode(value)
            } catch {
                throw .invalidRequest(reason: "the JSON body could not be encoded (\(type(of: value)))")
            }
            if !headers.contains("Content-Type") { headers["Content-Type"] = MediaType.json.rawValue }
        case nil:
            break
        }
        try RequestValidation.validate(headers, allowsHostHeader: configuration.allowsHostHeader)
        request.allHTTPHeaderFields = headers.dictionary
        request.timeoutInterval = URLSessionTransport.sessionTimeout(for: attemptTimeout(for: parts))
        return request
    }

    func transportOptions(for parts: SimpleRequest.Parts) -> TransportOptions {
        TransportOptions(
            timeout: attemptTimeout(for: parts),
            maximumResponseBodySize: parts.safety.maximumResponseBodySize ?? configuration.maximumResponseBodySize)
    }

    /// The attempt's timeout, never above `Configuration.maximumTimeout`. A value at or below zero is kept: it is
    /// what is left of an overall deadline that has just passed, and the attempt times out at once.
    private func attemptTimeout(for parts: SimpleRequest.Parts) -> TimeInterval {
        guard let seconds = parts.timeout, !seconds.isNaN else { return configuration.attemptTimeout(requested: nil) }
        return min(seconds, Configuration.maximumTimeout)
    }

    private func makeURL(for parts: SimpleRequest.Parts) throws(SimpleNetworkingError) -> URL {
        let query = parts.queryItems.map(URLEncoding.queryItem).joined(separator: "&")
        switch parts.target {
        case .absolute(let url):
            guard Origin(url) != nil else {
                throw .invalidURL(reason: "only http and https URLs with a host can be requested")
            }
            guard !query.isEmpty else { return url }
            let text = url.absoluteString
            guard let joined = URL(string: text + (url.query == nil ? "?" : "&") + query) else {
                throw .invalidURL(reason: "the query parameters could not be added to the URL")
            }
            return joined
        case .path(let path):
            let prefix = try base.prefix.get()
            try URLEncoding.refuseOriginChange(in: path)
            let (rawPath, rawQuery) = URLEncoding.split(path)
            var text = prefix
            let encodedPath = URLEncoding.encode(rawPath, allowing: URLEncoding.pathBytes)
            text += encodedPath.hasPrefix("/") ? encodedPath : "/" + encodedPath
            let queries = [rawQuery.map { URLEncoding.encode($0, allowing: URLEncoding.queryBytes) }, query]
                .compactMap { $0 }.filter { !$0.isEmpty }
            if !queries.isEmpty { text += "?" + queries.joined(separator: "&") }
            guard let url = URL(string: text), Origin(url) == base.origin else {
                throw .invalidURL(reason: "the path does not form a valid URL with the base URL")
            }
            return url
        }
    }
}

/// Percent-encoding by RFC 3986, byte by byte, keeping existing `%XX` escapes.
enum URLEncoding {
    static let unreservedBytes = ByteSet(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    /// pchar and "/": unreserved, sub-delims, ":" and "@".
    static let pathBytes = unreservedBytes.union("!$&'()*+,;=:@/".utf8)
    /// Query text: pchar, "/" and "?".
    static let queryBytes = pathBytes.union("?".utf8)

    static func queryItem(_ item: SimpleRequest.QueryItem) -> String {
        let name = encode(item.name, allowing: unreservedBytes, keepEscapes: false)
        guard let value = item.value else { return name }
        return name + "=" + encode(value, allowing: unreservedBytes, keepEscapes: false)
    }

    static func split(_ path: String) -> (path: String, query: String?) {
        guard let mark = path.firstIndex(of: "?") else { return (path, nil) }
        return (String(path[..<mark]), String(path[path.index(after: mark)...]))
    }

    /// Refuses paths that name an origin: `//host`, `\\host`, `scheme://`, `http:`/`https:`.
    static func refuseOriginChange(in path: String) throws(SimpleNetworkingError) {
        let trimmed = path.trimmingCharacters(in: .whitespacesAndNewlines)
        let lowered = trimmed.lowercased()
        let leadingSlashes = trimmed.prefix { $0 == "/" || $0 == "\\" }.count
        let schemeEnd = lowered.firstIndex(of: ":")
        let scheme = schemeEnd.map { String(lowered[..<$0]) } ?? ""
        let looksLikeScheme =
            !scheme.isEmpty && scheme.first?.isLetter == true
            && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
        let namesScheme =
            looksLikeScheme
            && (scheme == "http" || scheme == "https" || lowered.dropFirst(scheme.count + 1).hasPrefix("//"))
        if leadingSlashes >= 2 || trimmed.hasPrefix("\\") || namesScheme {
            throw .invalidURL(
                reason: "the path names another origin; use request(_:url:) to request an absolute URL on purpose")
        }
    }

    static func encode(_ text: String, allowing allowed: ByteSet, keepEscapes: Bool = true) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if allowed.contains(byte) {
                output.append(byte)
            } else if keepEscapes, byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                bytes[index + 1].isHexDigit, bytes[index + 2].isHexDigit
            {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (48...57).contains(self) || (65...70).contains(self) || (97...102).contains(self)
    }
}
