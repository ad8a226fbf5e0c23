import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SimpleNetworking.Configuration {
    /// The headers treated as secrets by default: removed when a redirect leaves the original origin, and redacted
    /// in cURL descriptions.
    ///
    /// `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `Api-Key`, `X-Auth-Token`,
    /// `X-Access-Token`, `X-Amz-Security-Token`, `X-CSRF-Token`.
    public static let defaultSensitiveHeaders: Set<String> = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie", "X-Api-Key", "Api-Key", "X-Auth-Token",
        "X-Access-Token", "X-Amz-Security-Token", "X-CSRF-Token",
    ]

    /// The query parameters (and JSON or form body fields) whose values are redacted by default in events and cURL
    /// descriptions.
    ///
    /// `api_key`, `apikey`, `api-key`, `key`, `access_token`, `refresh_token`, `id_token`, `token`, `auth`,
    /// `signature`, `sig`, `password`, `passwd`, `secret`, `client_secret`, `code`, `X-Amz-Signature`,
    /// `X-Amz-Credential`, `X-Amz-Security-Token`.
    public static let defaultSensitiveQueryParameters: Set<String> = [
        "api_key", "apikey", "api-key", "key", "access_token", "refresh_token", "id_token", "token", "auth",
        "signature", "sig", "password", "passwd", "secret", "client_secret", "code", "X-Amz-Signature",
        "X-Amz-Credential", "X-Amz-Security-Token",
    ]
}

/// The configured sensitive names, lowercased once, and the redaction they drive.
struct SensitiveData: Sendable {
    static let placeholder = "<redacted>"

    private let headers: Set<String>
    private let queryParameters: Set<String>

    init(headers: Set<String>, queryParameters: Set<String>) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryParameters = Set(queryParameters.map { $0.lowercased() })
    }

    init(_ configuration: SimpleNetworking.Configuration) {
        self.init(headers: configuration.sensitiveHeaders, queryParameters: configuration.sensitiveQueryParameters)
    }

    func isSensitive(header name: String) -> Bool {
        headers.contains(name.lowercased())
    }

    func isSensitive(parameter name: String) -> Bool {
        queryParameters.contains((name.removingPercentEncoding ?? name).lowercased())
    }

    /// `headers` without the sensitive ones.
    func removingSensitive(from headers: HTTPHeaders) -> HTTPHeaders {
        HTTPHeaders(headers.fields.filter { !isSensitive(header: $0.name) })
    }

    /// `url` without user info or fragment, and with the values of sensitive query parameters replaced: safe to log.
    func redact(_ url: URL?) -> String {
        guard let url, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return "(no URL)"
        }
        if components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
        }
        components.fragment = nil
        let query = components.percentEncodedQuery
        components.percentEncodedQuery = nil
        var text = components.string ?? "(invalid URL)"
        if url.user != nil || url.password != nil, let range = text.range(of: "://") {
            text.insert(contentsOf: Self.placeholder + "@", at: range.upperBound)
        }
        if let query { text += "?" + redact(query: query) }
        return text
    }

    /// A `name=value&...` string with the values of sensitive parameters replaced by `placeholder`.
    func redact(query: String, placeholder: String = Self.placeholder) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = pair[..<equals].replacingOccurrences(of: "+", with: " ")
            return isSensitive(parameter: name) ? pair[..<equals] + "=" + placeholder : String(pair)
        }.joined(separator: "&")
    }

    /// `url` as a URL that is safe to keep: no user info or fragment, and the values of sensitive query parameters
    /// replaced with `<redacted>` (percent-encoded); `nil` when it cannot be taken apart.
    func redactedURL(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        components.user = nil
        components.password = nil
        components.fragment = nil
        if let query = components.percentEncodedQuery {
            components.percentEncodedQuery = redact(query: query, placeholder: "%3Credacted%3E")
        }
        return components.url
    }

    /// `error` with the platform error of a transport failure rebuilt from what is safe to keep.
    ///
    /// A URLError from URLSession keeps the failing URL, with its user info and every query value, in its
    /// `userInfo` and in an underlying error, where `dump` and `String(reflecting:)` show them. The kept `URLError`
    /// has the same code, the failing URL redacted by ``redactedURL(_:)`` and the library's description; nothing
    /// else. The failure's category and detail are kept as they are.
    func redact(_ error: SimpleNetworkingError) -> SimpleNetworkingError {
        guard case .transportFailed(var failure, let attempts) = error, let urlError = failure.urlError else {
            return error
        }
        var userInfo: [String: Any] = [NSLocalizedDescriptionKey: failure.description]
        if let failingURL = urlError.failingURL, let safe = redactedURL(failingURL) {
            userInfo[NSURLErrorFailingURLErrorKey] = safe
        }
        failure.underlying = URLError(urlError.code, userInfo: userInfo)
        return .transportFailed(failure, attempts: attempts)
    }

    /// A JSON value with the values of sensitive keys replaced, at any depth.
    func redact(json value: Any) -> Any {
        if let object = value as? [String: Any] {
            var redacted: [String: Any] = [:]
            for (key, item) in object {
                redacted[key] = isSensitive(parameter: key) ? Self.placeholder : redact(json: item)
            }
            return redacted
        }
        if let array = value as? [Any] { return array.map { redact(json: $0) } }
        return value
    }
}
