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

/// The base URL, checked once per value, as the text every request path is appended to.
struct BaseURL: Sendable {
    /// The URL as given, to tell whether a provider's next value is the one already checked.
    let url: URL
    /// `scheme://authority/path` without a trailing slash, or the reason the base URL is unusable.
    let prefix: Result<String, SimpleNetworkingError>
    let origin: Origin?

    init(_ url: URL) {
        self.url = url
        origin = Origin(url)
        guard let origin else {
            prefix = .failure(.invalidURL(reason: "the base URL must be an http or https URL with a host"))
            return
        }
        guard url.query == nil, url.fragment == nil else {
            prefix = .failure(.invalidURL(reason: "the base URL must not have a query or fragment"))
            return
        }
        // User info in the base URL is the client's own configuration: the transport sends it as Basic credentials
        // to the base URL's origin only, since redirect targets lose theirs (<doc:SecurityDefaults>).
        guard var text = url.lowercasingScheme(origin.scheme)?.absoluteString else {
            prefix = .failure(.invalidURL(reason: "the base URL could not be rebuilt with a lower-case scheme"))
            return
        }
        while text.hasSuffix("/") { text.removeLast() }
        prefix = .success(text)
    }
}

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

    /// The attempt's URL and its origin.
    private func makeURL(for parts: SimpleRequest.Parts, base: BaseURL) throws(SimpleNetworkingError) -> (URL, Origin) {
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
            let prefix = try base.prefix.get()
            try URLEncoding.refuseOriginChange(in: path)
            let (rawPath, rawQuery) = URLEncoding.split(path)
            var text = prefix
            let encodedPath = URLEncoding.encode(rawPath, allowing: URLEncoding.pathBytes)
            text += try URLEncoding.resolvingDotSegments(encodedPath.hasPrefix("/") ? encodedPath : "/" + encodedPath)
            let pathQuery = rawQuery.map { URLEncoding.encode($0, allowing: URLEncoding.queryBytes) } ?? ""
            switch (pathQuery.isEmpty, query.isEmpty) {
            case (true, true): break
            case (false, true): text += "?" + pathQuery
            case (true, false): text += "?" + query
            case (false, false): text += "?" + pathQuery + "&" + query
            }
            guard let url = URL(string: text), let origin = Origin(url), origin == base.origin else {
                throw .invalidURL(reason: "the path does not form a valid URL with the base URL")
            }
            return (url, origin)
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
        // By UTF-8 byte: "?" is ASCII, so it never falls inside a character, and no Character is formed.
        guard let mark = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (path, nil) }
        return (String(path[..<mark]), String(path[path.utf8.index(after: mark)...]))
    }

    /// Why an absolute request URL with user info (`user:password@host`) is refused: such URLs often come from
    /// server data, and the transport would turn the user info into credentials (<doc:SecurityDefaults>).
    /// User info in the client's base URL is allowed.
    static let userInfoReason =
        "an absolute request URL must not hold user info (user:password@); put credentials in the base URL or in "
        + "an Authorization header"

    /// Refuses paths that name an origin: `//host`, `\\host`, `scheme://`, `http:`/`https:`, after leading
    /// white space. One scan of the path's first bytes; a path that starts with non-ASCII text takes the slower
    /// Unicode-aware check.
    static func refuseOriginChange(in path: String) throws(SimpleNetworkingError) {
        let bytes = path.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex, asciiWhitespace.contains(bytes[index]) { index = bytes.index(after: index) }
        guard index != bytes.endIndex else { return }
        let first = bytes[index]
        if first >= 0x80 { return try refuseOriginChangeInUnicode(path) }
        let slash = UInt8(ascii: "/")
        let backslash = UInt8(ascii: "\\")
        if first == backslash { throw originChange }
        if first == slash {
            let next = bytes.index(after: index)
            if next != bytes.endIndex, bytes[next] == slash || bytes[next] == backslash { throw originChange }
            return
        }
        guard asciiLetters.contains(first) else { return }
        var end = index
        while end != bytes.endIndex, schemeBytes.contains(bytes[end]) { end = bytes.index(after: end) }
        guard end != bytes.endIndex else { return }
        if bytes[end] >= 0x80 { return try refuseOriginChangeInUnicode(path) }
        guard bytes[end] == UInt8(ascii: ":") else { return }
        let scheme = String(decoding: bytes[index..<end], as: UTF8.self).asciiLowercased
        let rest = bytes[bytes.index(after: end)...]
        if scheme == "http" || scheme == "https" || rest.starts(with: [slash, slash]) { throw originChange }
    }

    private static let originChange = SimpleNetworkingError.invalidURL(
        reason: "the path names another origin; use request(_:url:) to request an absolute URL on purpose")
    private static let asciiWhitespace = ByteSet(" \t\n\r\u{0B}\u{0C}".utf8)
    private static let asciiLetters = ByteSet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
    private static let schemeBytes = asciiLetters.union("0123456789+-.".utf8)

    /// The same rule over Unicode text, for paths that start with non-ASCII characters.
    private static func refuseOriginChangeInUnicode(_ path: String) throws(SimpleNetworkingError) {
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
        if leadingSlashes >= 2 || trimmed.hasPrefix("\\") || namesScheme { throw originChange }
    }

    /// `path` (encoded, starting with `/`) with its dot segments resolved as RFC 3986 section 5.2.4 does, so that
    /// what the server sees is what was checked (<doc:SecurityDefaults>).
    ///
    /// Literal `.` and `..` segments are resolved within the path: `/a/../b` is `/b`, appended to the base path. A
    /// `..` that would climb above the start, into or past the base URL's path, is refused, and so is a dot segment
    /// in any disguise a server might decode after the check: `%2e` in any case, `%2F` or `%5C` (a backslash is
    /// encoded as `%5C`) as a separator, or path parameters (`..;x`). Paths without a dot pass untouched, after one
    /// scan of their bytes.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)``.
    static func resolvingDotSegments(_ path: String) throws(SimpleNetworkingError) -> String {
        guard mayHoldDotSegment(path) else { return path }
        let slash = UInt8(ascii: "/")
        let bytes = Array(path.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var keptStarts: [Int] = []  // where each kept segment, with its leading "/", starts in `output`
        var endsInDirectory = false
        var start = bytes.index(after: bytes.startIndex)
        while start <= bytes.endIndex {
            let end = bytes[start...].firstIndex(of: slash) ?? bytes.endIndex
            switch dotSegment(bytes[start..<end]) {
            case nil:
                keptStarts.append(output.count)
                output.append(slash)
                output.append(contentsOf: bytes[start..<end])
                endsInDirectory = false
            case .current:
                endsInDirectory = true
            case .parent:
                guard let removed = keptStarts.popLast() else {
                    throw .invalidURL(reason: "the path's dot segments climb above the base URL's path")
                }
                output.removeSubrange(removed...)
                endsInDirectory = true
            case .disguised:
                throw .invalidURL(
                    reason: "the path holds an encoded or disguised dot segment (%2e, a backslash, %2F or %5C as a "
                        + "separator, or ..;); write . and .. literally")
            }
            start = end + 1
        }
        if endsInDirectory || output.isEmpty { output.append(slash) }
        return String(decoding: output, as: UTF8.self)
    }

    /// A dot segment, or a segment that hides one.
    private enum DotSegment {
        case current, parent, disguised
    }

    /// Whether a segment, or a piece after `%2F` or `%5C`, starts with `.` or `%2E`: without one there is no dot
    /// segment, and `/users/1/profile.json` passes in one scan without allocating.
    private static func mayHoldDotSegment(_ path: String) -> Bool {
        path.utf8.withContiguousStorageIfAvailable(mayHoldDotSegment) ?? mayHoldDotSegment(Array(path.utf8))
    }

    private static func mayHoldDotSegment<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes) -> Bool
    where Bytes.Index == Int {
        var atStart = true
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") {
                atStart = true
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex {
                let pair = (bytes[index + 1], bytes[index + 2] | 0x20)
                if pair == (UInt8(ascii: "2"), UInt8(ascii: "e")) {
                    if atStart { return true }
                    atStart = false
                } else {
                    atStart =
                        pair == (UInt8(ascii: "2"), UInt8(ascii: "f")) || pair == (UInt8(ascii: "5"), UInt8(ascii: "c"))
                }
                index += 3
                continue
            } else {
                if atStart, byte == UInt8(ascii: ".") { return true }
                atStart = false
            }
            index += 1
        }
        return false
    }

    private static func dotSegment(_ segment: ArraySlice<UInt8>) -> DotSegment? {
        let dot = UInt8(ascii: ".")
        if segment.count == 1, segment.first == dot { return .current }
        if segment.count == 2, segment.allSatisfy({ $0 == dot }) { return .parent }
        // Pieces between encoded separators (%2F, %5C), each up to its path parameters (";").
        var start = segment.startIndex
        var index = start
        while index <= segment.endIndex {
            let separatorLength = index < segment.endIndex ? encodedSeparatorLength(segment, at: index) : 0
            if index == segment.endIndex || separatorLength > 0 {
                let piece = segment[start..<index]
                let name = piece.firstIndex(of: UInt8(ascii: ";")).map { piece[..<$0] } ?? piece
                if isDotName(name) { return .disguised }
                index += max(separatorLength, 1)
                start = index
            } else {
                index += 1
            }
        }
        return nil
    }

    /// `%2F` or `%5C` (any case) at `index`: 3; otherwise 0.
    private static func encodedSeparatorLength(_ bytes: ArraySlice<UInt8>, at index: Int) -> Int {
        guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.endIndex else { return 0 }
        let pair = (bytes[index + 1], bytes[index + 2] | 0x20)
        return pair == (UInt8(ascii: "2"), UInt8(ascii: "f")) || pair == (UInt8(ascii: "5"), UInt8(ascii: "c")) ? 3 : 0
    }

    /// Whether `name` reads `.` or `..` once `%2E` escapes are decoded.
    private static func isDotName(_ name: ArraySlice<UInt8>) -> Bool {
        var dots = 0
        var index = name.startIndex
        while index < name.endIndex {
            if name[index] == UInt8(ascii: ".") {
                index += 1
            } else if name[index] == UInt8(ascii: "%"), index + 2 < name.endIndex, name[index + 1] == UInt8(ascii: "2"),
                name[index + 2] | 0x20 == UInt8(ascii: "e")
            {
                index += 3
            } else {
                return false
            }
            dots += 1
        }
        return dots == 1 || dots == 2
    }

    static func encode(_ text: String, allowing allowed: ByteSet, keepEscapes: Bool = true) -> String {
        // Text with nothing to encode, such as most paths, is returned as it is after one scan, without a copy.
        if text.utf8.allSatisfy({ allowed.contains($0) }) { return text }
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

extension String {
    /// This text with ASCII letters lower-cased; itself, without a copy, when it has no upper-case ASCII letter.
    var asciiLowercased: String {
        guard utf8.contains(where: { (65...90).contains($0) }) else { return self }
        return String(decoding: utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
