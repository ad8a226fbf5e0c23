import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The state of one attempt's redirect chain, and the rules that compute each next request.
///
/// Redirects are followed here rather than by URLSession, because FoundationNetworking on Linux forwards
/// `Authorization` and `Cookie` to other origins, does not refuse https to http, sends an empty body after a 307 or
/// 308, and has a fixed limit of 20 with no loop detection (see "URLSession on Linux" in the documentation).
struct RedirectChain {
    /// What to do with a response.
    enum Step {
        /// The response is final: hand it to the pipeline.
        case deliver
        /// Send `request` next; `hop` describes the redirect.
        case follow(HTTPRequest, hop: RedirectHop)
    }

    /// Headers that describe a body, removed when a redirect turns the request into a GET without one.
    static let bodyHeaders = [
        "Content-Type", "Content-Length", "Content-Encoding", "Content-Language",
        "Content-Location", "Transfer-Encoding",
    ]

    let policy: RedirectPolicy
    let sensitiveHeaders: SensitiveData
    /// The first request of the chain; its origin and visited key are worked out only once a redirect arrives, so
    /// an attempt without redirects pays nothing for the chain.
    let original: HTTPRequest
    private(set) lazy var originalOrigin: Origin? = Origin(original.url)
    private(set) var hops = 0
    /// Set once any hop leaves the original origin; sensitive headers stay removed for the rest of the chain.
    private(set) var hasLeftOrigin = false
    private var visited: Set<String> = []

    init(original: HTTPRequest, policy: RedirectPolicy, sensitiveData: SensitiveData) {
        self.policy = policy
        self.sensitiveHeaders = sensitiveData
        self.original = original
    }

    /// What follows `response`, the answer to `request`.
    /// - Throws: ``SimpleNetworkingError/tooManyRedirects(limit:)`` or
    ///   ``SimpleNetworkingError/redirectRefused(reason:)``.
    mutating func step(after response: SimpleResponse, to request: HTTPRequest) throws(SimpleNetworkingError) -> Step {
        // 300 and 304 are not redirects to follow (SimpleResponse.isRedirection).
        guard response.isRedirection else { return .deliver }
        if case .doNotFollow = policy.rule { return .deliver }
        guard let location = response.headers["Location"]?.trimmingCharacters(in: .whitespaces),
            !location.isEmpty
        else { return .deliver }
        let current = request.url
        guard let target = Self.resolve(location, against: current) else {
            throw .redirectRefused(reason: "the Location header is not a valid URL")
        }
        guard let targetOrigin = Origin(target) else {
            throw .redirectRefused(reason: "a redirect may only go to an http or https URL with a host")
        }
        if current.scheme?.lowercased() == "https", targetOrigin.scheme == "http", !policy.allowsHTTPSDowngrade {
            throw .redirectRefused(reason: "a redirect from https to http is refused")
        }
        let method = Self.method(after: response.statusCode, from: request.method)
        let leaves = targetOrigin != originalOrigin
        let hop = RedirectHop(
            from: current, to: target, statusCode: response.statusCode, number: hops + 1, method: method,
            leavesOriginalOrigin: leaves)
        switch policy.rule {
        case .doNotFollow, .follow:
            break
        case .sameOrigin:
            if leaves { throw .redirectRefused(reason: "the redirect policy follows same-origin redirects only") }
        case .custom(let decide):
            if !decide(hop) { throw .redirectRefused(reason: "the redirect policy refused the redirect") }
        }
        var next = request
        next.url = target
        next.method = method
        if method != request.method {
            next.body = nil
            next.bodyFile = nil
            for name in Self.bodyHeaders { next.headers.remove(name: name) }
        }
        // A caller's Host (Configuration.allowsHostHeader) names the server it was set for, not the next one.
        if Origin(current) != targetOrigin { next.headers.remove(name: "Host") }
        hasLeftOrigin = hasLeftOrigin || leaves
        if hasLeftOrigin { next.headers = sensitiveHeaders.removingSensitive(from: next.headers) }
        if visited.isEmpty { visited.insert(Self.key(original)) }
        guard visited.insert(Self.key(next)).inserted else {
            throw .redirectRefused(reason: "the redirects form a loop")
        }
        guard hops < policy.limit else { throw .tooManyRedirects(limit: policy.limit) }
        hops += 1
        return .follow(next, hop: hop)
    }

    /// The method after a redirect, by RFC 9110 section 15.4 as browsers apply it (Fetch): 301 and 302 turn a POST
    /// into a GET, 303 turns anything but HEAD into a GET, 307 and 308 keep the method (and the body).
    static func method(after status: Int, from method: HTTPMethod) -> HTTPMethod {
        switch status {
        case 301, 302: return method == .post ? .get : method
        case 303: return method == .head ? .head : .get
        default: return method
        }
    }

    /// `location` resolved against `base`, without a fragment (fragments are never sent) and without user info:
    /// libcurl would turn `user:password@` into an `Authorization: Basic` header for whatever host the redirect
    /// names (<doc:SecurityDefaults>).
    static func resolve(_ location: String, against base: URL) -> URL? {
        guard let resolved = URL(string: location, relativeTo: base)?.absoluteURL,
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: false)
        else { return nil }
        components.fragment = nil
        components.user = nil
        components.password = nil
        components.scheme = components.scheme?.lowercased()  // FoundationNetworking refuses HTTP://
        return components.url
    }

    private static func key(_ request: HTTPRequest) -> String {
        request.method.rawValue + " " + request.url.absoluteString
    }
}
