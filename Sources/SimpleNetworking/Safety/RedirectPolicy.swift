import Foundation

/// Which redirects a client follows, decided hop by hop by the library itself on every platform.
///
/// Whatever the policy, a redirect that leaves the original request's origin (scheme, host or port) loses the
/// ``SimpleNetworking/Configuration/sensitiveHeaders`` for the rest of the chain, even if a later hop comes back;
/// an `https` to `http` redirect is refused unless ``allowsHTTPSDowngrade`` is set; and a chain that visits the same
/// method and URL twice is refused as a loop.
///
/// ```swift
/// configuration.redirectPolicy = .sameOrigin
/// api.get("/download").redirects(.follow(limit: 3))
/// ```
public struct RedirectPolicy: Sendable {
    enum Rule: Sendable {
        case doNotFollow
        case follow
        case sameOrigin
        case custom(@Sendable (RedirectHop) -> Bool)
    }

    let rule: Rule

    /// The most redirects followed in one attempt; the next one fails with
    /// ``SimpleNetworkingError/tooManyRedirects(limit:)``. Negative values count as 0.
    public var limit: Int

    /// Whether a redirect from `https` to `http` may be followed. Default: `false`, such a redirect fails with
    /// ``SimpleNetworkingError/redirectRefused(reason:)``.
    public var allowsHTTPSDowngrade: Bool = false

    init(_ rule: Rule, limit: Int) {
        self.rule = rule
        self.limit = max(0, limit)
    }

    /// Follows redirects to any `http` or `https` URL, up to `limit` of them. The default policy, with 10.
    /// - Parameter limit: The most redirects followed in one attempt. Default: 10.
    /// - Returns: The policy.
    public static func follow(limit: Int = 10) -> RedirectPolicy {
        RedirectPolicy(.follow, limit: limit)
    }

    /// Never follows: the 3xx response reaches the handlers like any other response.
    public static let doNotFollow = RedirectPolicy(.doNotFollow, limit: 0)

    /// Follows redirects that stay on the original request's origin, up to 10; any other one fails with
    /// ``SimpleNetworkingError/redirectRefused(reason:)``.
    public static let sameOrigin = RedirectPolicy(.sameOrigin, limit: 10)

    /// Asks `decide` about each redirect that passes the built-in checks (limit, loop, downgrade).
    /// - Parameters:
    ///   - limit: The most redirects followed in one attempt. Default: 10.
    ///   - decide: Returns `true` to follow the hop, `false` to fail with
    ///     ``SimpleNetworkingError/redirectRefused(reason:)``. Called on any thread.
    /// - Returns: The policy.
    public static func custom(limit: Int = 10, _ decide: @escaping @Sendable (RedirectHop) -> Bool) -> RedirectPolicy {
        RedirectPolicy(.custom(decide), limit: limit)
    }

    /// This policy with ``allowsHTTPSDowngrade`` set.
    /// - Parameter allowed: Whether `https` to `http` redirects may be followed. Default: `true`.
    /// - Returns: The changed policy.
    public func allowingHTTPSDowngrade(_ allowed: Bool = true) -> RedirectPolicy {
        var policy = self
        policy.allowsHTTPSDowngrade = allowed
        return policy
    }
}

/// One redirect about to be followed, as a ``RedirectPolicy/custom(limit:_:)`` policy sees it.
public struct RedirectHop: Sendable {
    /// The URL that answered with the redirect.
    public let from: URL
    /// The URL the redirect points to, resolved against ``from``.
    public let to: URL
    /// The redirect status: 301, 302, 303, 307 or 308.
    public let statusCode: Int
    /// Which redirect of the chain this is, from 1.
    public let number: Int
    /// The method the next request will use (301/302 turn a POST into a GET, 303 anything but HEAD).
    public let method: HTTPMethod
    /// Whether ``to`` has a different origin (scheme, host or port) from the original request.
    public let leavesOriginalOrigin: Bool
}
