import Foundation

/// An RFC 6265 cookie jar: stores the cookies of `Set-Cookie` fields and says which go with each request.
///
/// Every client has one of its own by default (``SimpleNetworking/cookieJar``), applied on every redirect hop;
/// pass one to several clients with ``CookieHandling/shared(_:)`` to share a login. Safe to use from any thread.
///
/// ```swift
/// let jar = CookieJar()
/// jar.receive(setCookie: ["session=abc; Path=/; HttpOnly"], from: URL(string: "https://example.com/login")!)
/// let header = jar.cookieHeader(for: URL(string: "https://example.com/account")!)  // "session=abc"
/// ```
///
/// The rules: host-only and domain cookies, with no `Domain` that is a public suffix or that does not domain-match
/// the host, and none for IP-address hosts; default path and path-match; `Max-Age` over `Expires`, and a past
/// date deletes; `Secure` only from and to `https` (loopback included), and an `http` response cannot replace a
/// `Secure` cookie; the `__Secure-` and `__Host-` prefixes. Limits keep a hostile server from growing it:
/// ``maximumCookieSize`` bytes per cookie, ``maximumCookiesPerDomain`` per registrable domain and
/// ``maximumCookies`` in all, expired cookies evicted first, then the oldest.
public final class CookieJar: Sendable {
    // Sendable without `@unchecked`: the limits and the clock are `let`s of Sendable types, and every cookie lives
    // in `state`, behind its lock.

    /// The largest cookie accepted, name and value together, in bytes: 4,096.
    public static let maximumCookieSize = 4096
    /// The longest a cookie may live, whatever its `Max-Age` or `Expires`: 400 days (RFC 6265bis).
    public static let maximumLifetime: TimeInterval = 400 * 86_400

    /// The most cookies kept for one registrable domain (`example.com` with all its subdomains).
    public let maximumCookiesPerDomain: Int
    /// The most cookies kept in all.
    public let maximumCookies: Int

    let now: @Sendable () -> Date
    private let state = Locked(State())

    /// Creates an empty jar.
    /// - Parameters:
    ///   - maximumCookiesPerDomain: The most cookies kept per registrable domain. Default: 180; at least 1.
    ///   - maximumCookies: The most cookies kept in all. Default: 3,000; at least 1.
    ///   - now: The time source for expiry and creation times; inject a fixed clock in tests. Default: the system
    ///     clock.
    public init(
        maximumCookiesPerDomain: Int = 180, maximumCookies: Int = 3000,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.maximumCookiesPerDomain = max(1, maximumCookiesPerDomain)
        self.maximumCookies = max(1, maximumCookies)
        self.now = now
    }

    /// Every cookie that has not expired, oldest first.
    public var cookies: [Cookie] {
        let now = now()
        return state.withLock { state in
            state.entries.filter { !$0.cookie.isExpired(at: now) }.sorted(by: Entry.isOlder).map(\.cookie)
        }
    }

    /// The cookies a request to `url` would carry, in the order of its `Cookie` header: longer paths first, then
    /// older ones.
    /// - Parameter url: An `http` or `https` URL; other schemes get none.
    /// - Returns: The cookies; empty when none match.
    public func cookies(for url: URL) -> [Cookie] {
        // An empty jar (most clients of an API without cookies) costs one lock, not a URL parse and suffix lookup.
        guard state.withLock({ $0.count > 0 }), let host = CookieRules.host(of: url) else { return [] }
        let bucket = CookieRules.bucket(for: host)  // parses the suffix list at first use: outside the lock
        let path = CookieRules.requestPath(of: url)
        let isSecure = CookieRules.isSecure(url)
        let now = now()
        let matching = state.withLock { state in
            state.removeExpired(in: bucket, at: now)
            return state.buckets[bucket, default: [:]].values.filter { entry in
                let cookie = entry.cookie
                let domainMatches =
                    cookie.isHostOnly
                    ? host == cookie.domain : CookieRules.domainMatches(host: host, domain: cookie.domain)
                return domainMatches && CookieRules.pathMatches(requestPath: path, cookiePath: cookie.path)
                    && (isSecure || !cookie.isSecure)
            }
        }
        return matching.sorted { left, right in
            let leftLength = left.cookie.path.utf8.count
            let rightLength = right.cookie.path.utf8.count
            return leftLength != rightLength ? leftLength > rightLength : Entry.isOlder(left, right)
        }.map(\.cookie)
    }

    /// The value of the `Cookie` header for a request to `url` (`a=1; b=2`), or `nil` when no cookie matches.
    /// - Parameter url: The request's URL.
    /// - Returns: The header value, or `nil`.
    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        return cookies.isEmpty ? nil : cookies.map(\.headerPair).joined(separator: "; ")
    }

    /// Stores the cookies of a response's `Set-Cookie` fields by the jar's rules; fields that break a rule are
    /// ignored, and a cookie that has already expired deletes the one it names.
    ///
    /// The client calls this for every response, redirects included; call it yourself for responses that reach
    /// you another way.
    /// - Parameters:
    ///   - fields: The `Set-Cookie` values, one per field (`response.headers.values(for: "Set-Cookie")`).
    ///   - url: The URL of the request the response answered.
    public func receive(setCookie fields: [String], from url: URL) {
        guard !fields.isEmpty, let context = ReceivingContext(url: url, now: now()) else { return }
        // Decided before the lock is taken: the suffix list may be parsed here, at first use.
        let cookies = fields.compactMap { field in
            SetCookieParser.parse(field).flatMap { context.cookie(from: $0) }
        }
        guard !cookies.isEmpty else { return }
        let limits = limits
        let buckets = Set(cookies.map(\.bucket))
        state.withLock { state in
            // From plain http, no cookie may replace or shadow a Secure one; none is added meanwhile.
            let secureCookies = context.isSecure ? [] : state.secureCookies(in: buckets)
            for (cookie, bucket) in cookies {
                if !cookie.isSecure, secureCookies.contains(where: { cookie.wouldShadow(secure: $0) }) { continue }
                state.store(cookie, in: bucket, at: context.now)
                // Evicting in batches keeps a flood of fields cheap; the limits hold again before the lock is left.
                if state.buckets[bucket, default: [:]].count >= 2 * limits.perDomain
                    || state.count >= limits.total + limits.perDomain
                {
                    state.enforce(limits, in: bucket, at: context.now)
                }
            }
            for bucket in buckets { state.enforce(limits, in: bucket, at: context.now) }
        }
    }

    /// Adds `cookie`, replacing one with the same name, domain and path, as long as it is valid and not expired.
    /// - Parameter cookie: The cookie; its creation time is kept unless it replaces an older one.
    /// - Returns: Whether it was stored: `false` for an expired cookie, an empty name, a name or value with a
    ///   control character or `;`, more than ``maximumCookieSize`` bytes, an empty domain or a path not starting
    ///   with `/`.
    @discardableResult
    public func add(_ cookie: Cookie) -> Bool {
        let now = now()
        guard cookie.invalidReason == nil, !cookie.isExpired(at: now) else { return false }
        let bucket = CookieRules.bucket(for: cookie.domain)
        let limits = limits
        state.withLock { state in
            state.store(cookie, in: bucket, at: now)
            state.enforce(limits, in: bucket, at: now)
        }
        return true
    }

    /// Removes the cookie with the same name, domain and path as `cookie`.
    /// - Parameter cookie: The cookie to remove; only its name, domain and path are compared.
    /// - Returns: Whether a cookie was removed.
    @discardableResult
    public func remove(_ cookie: Cookie) -> Bool {
        let bucket = CookieRules.bucket(for: cookie.domain)
        return state.withLock { $0.remove(cookie.key, in: bucket) }
    }

    /// Removes every cookie.
    public func removeAll() {
        state.set(State())
    }

    private var limits: Limits { Limits(perDomain: maximumCookiesPerDomain, total: maximumCookies) }
}

extension CookieJar {
    /// A stored cookie and the order it was first stored in, which breaks ties between equal creation times.
    struct Entry: Sendable {
        var cookie: Cookie
        var sequence: UInt64

        static func isOlder(_ left: Entry, _ right: Entry) -> Bool {
            left.cookie.creation != right.cookie.creation
                ? left.cookie.creation < right.cookie.creation : left.sequence < right.sequence
        }
    }

    struct Limits {
        var perDomain: Int
        var total: Int
    }

    /// The cookies, in buckets by registrable domain (see `CookieRules.bucket(for:)`).
    struct State: Sendable {
        var buckets: [String: [Cookie.Key: Entry]] = [:]
        var count = 0
        var nextSequence: UInt64 = 0

        var entries: [Entry] { buckets.values.flatMap(\.values) }

        /// Stores `cookie`, or deletes the cookie it names when it has expired. The limits are applied apart, by
        /// ``enforce(_:in:at:)``.
        ///
        /// Times are kept to the whole second, as cookies state them: the saved file holds seconds since 1970, and
        /// a whole second is the precision that survives the trip exactly, so a loaded jar equals the saved one.
        mutating func store(_ cookie: Cookie, in bucket: String, at now: Date) {
            var cookie = cookie
            cookie.creation = Self.wholeSecond(cookie.creation)
            cookie.expires = cookie.expires.map(Self.wholeSecond)
            let key = cookie.key
            let old = buckets[bucket]?[key]
            if cookie.isExpired(at: now) {
                _ = remove(key, in: bucket)
                return
            }
            var entry = Entry(cookie: cookie, sequence: nextSequence)
            if let old {
                entry.cookie.creation = old.cookie.creation
                entry.sequence = old.sequence
            } else {
                nextSequence += 1
                count += 1
            }
            buckets[bucket, default: [:]][key] = entry
        }

        private static func wholeSecond(_ date: Date) -> Date {
            let seconds = date.timeIntervalSince1970
            return seconds.isFinite ? Date(timeIntervalSince1970: seconds.rounded(.down)) : date
        }

        /// Brings `bucket` within the per-domain limit and the jar within the total: expired cookies go first,
        /// then the oldest.
        mutating func enforce(_ limits: Limits, in bucket: String, at now: Date) {
            if buckets[bucket, default: [:]].count > limits.perDomain {
                removeExpired(in: bucket, at: now)
                let overflow = buckets[bucket, default: [:]].count - limits.perDomain
                if overflow > 0 {
                    let victims = buckets[bucket, default: [:]].values.sorted(by: Entry.isOlder).prefix(overflow)
                        .map(\.cookie.key)
                    for key in victims { _ = remove(key, in: bucket) }
                }
            }
            if count > limits.total {
                for name in Array(buckets.keys) { removeExpired(in: name, at: now) }
                let overflow = count - limits.total
                if overflow > 0 {
                    let victims = buckets.flatMap { name, cookies in cookies.values.map { (bucket: name, entry: $0) } }
                        .sorted { Entry.isOlder($0.entry, $1.entry) }.prefix(overflow)
                        .map { (bucket: $0.bucket, key: $0.entry.cookie.key) }
                    for victim in victims { _ = remove(victim.key, in: victim.bucket) }
                }
            }
        }

        mutating func remove(_ key: Cookie.Key, in bucket: String) -> Bool {
            guard buckets[bucket]?.removeValue(forKey: key) != nil else { return false }
            count -= 1
            if buckets[bucket]?.isEmpty == true { buckets[bucket] = nil }
            return true
        }

        mutating func removeExpired(in bucket: String, at now: Date) {
            guard let cookies = buckets[bucket] else { return }
            for entry in cookies.values where entry.cookie.isExpired(at: now) {
                _ = remove(entry.cookie.key, in: bucket)
            }
        }

        /// The `Secure` cookies of `buckets`.
        func secureCookies(in buckets: Set<String>) -> [Cookie] {
            buckets.flatMap { self.buckets[$0, default: [:]].values.map(\.cookie).filter(\.isSecure) }
        }
    }
}

extension Cookie {
    /// Whether this cookie, from plain `http`, would replace or shadow `secure` (RFC 6265bis): the same name,
    /// domains that domain-match either way, and a path that path-matches the secure cookie's.
    func wouldShadow(secure: Cookie) -> Bool {
        secure.name == name
            && (CookieRules.domainMatches(host: secure.domain, domain: domain)
                || CookieRules.domainMatches(host: domain, domain: secure.domain))
            && CookieRules.pathMatches(requestPath: path, cookiePath: secure.path)
    }
}
