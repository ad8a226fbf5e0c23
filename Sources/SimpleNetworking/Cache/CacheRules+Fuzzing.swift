import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The entry to the cache rules for the fuzz targets of `FuzzTesting/` only: SPI, not part of the library's API.

/// The cache rules (`CacheControl`, `CacheFreshness`, `CacheStorability`, `CacheVariant`, `CacheLookup`,
/// `CacheStaleIfError`, `CacheRevalidation`, `CacheInvalidation`) run on one exchange, for a fuzz target.
@_spi(Fuzzing)
public enum CacheRules {
    /// What the rules made of one exchange.
    public struct Report: Sendable {
        /// The stored response's current age at the lookup, in seconds.
        public var currentAge: Double
        /// Its freshness lifetime, in seconds.
        public var lifetime: Double
        /// Whether the response was stored.
        public var isStored: Bool
        /// Whether the request said `no-store`.
        public var requestNoStore: Bool
        /// Whether the response said `no-store`, and `must-understand` with a status the cache understands did not
        /// override it.
        public var responseNoStoreApplies: Bool
        /// Whether the response's `Vary` held `*`.
        public var varyAll: Bool
        /// Whether the request or the response said `no-cache`.
        public var noCache: Bool
        /// Whether the response said `must-revalidate`.
        public var mustRevalidate: Bool
        /// Whether the request said `only-if-cached`.
        public var onlyIfCached: Bool
        /// The lookup decision: `serveFresh`, `serveStale`, `serveStaleWhileRevalidating`, `revalidate`, `fetch`
        /// or `gatewayTimeout`.
        public var decision: String
        /// The `Age` value the decision sends, when it serves the stored response.
        public var ageFieldValue: Int?
        /// Whether the stored response's variant matches the request that brought it.
        public var variantMatchesOwnRequest: Bool
        /// The `Age` value stale-if-error would serve with after a transport error, or `nil`.
        public var staleIfErrorAge: Int?
        /// Whether a `304` carrying the stored response's own fields applies to it.
        public var selfRevalidationApplies: Bool
        /// Whether that merge kept the stored `Content-Length` fields.
        public var mergeKeptContentLength: Bool
        /// The primary keys a `POST` answered `200` with the given `Location` invalidates.
        public var invalidatedKeys: [String]
        /// The primary key of the request's URL.
        public var targetKey: String
    }

    /// Stores a response received for a `GET` of `https://example.com/resource` at a fixed moment (2024-01-01), if
    /// the rules allow it, then looks the same request up `elapsed` seconds later.
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - response: The response's header fields.
    ///   - request: The request's header fields.
    ///   - elapsed: Seconds between receipt and lookup (any value; a negative one is a clock that went back).
    ///   - location: A `Location` value for the invalidation of a `POST` to the same URL.
    /// - Returns: What the rules made of it.
    public static func evaluate(
        status: Int, response: [(name: String, value: String)], request: [(name: String, value: String)],
        elapsed: Double, location: String
    ) -> Report {
        let base = Date(timeIntervalSince1970: 1_704_067_200)
        let now = base.addingTimeInterval(elapsed)
        let responseHeaders = HTTPHeaders(response.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
        let requestHeaders = HTTPHeaders(request.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
        let fields = CacheResponseFields(responseHeaders, now: base)
        let requestDirectives = CacheControl(requestHeaders: requestHeaders)
        let directives = fields.cacheControl

        let refusal = CacheStorability.refusal(
            method: .get, requestHeaders: requestHeaders, status: status, responseHeaders: responseHeaders,
            responseTime: base)
        let head = CachedResponseHead(
            status: status, responseHeaders: responseHeaders, requestHeaders: requestHeaders, requestTime: base,
            responseTime: base)
        let stored = refusal == nil ? head : nil
        let decision = CacheLookup.decide(method: .get, requestHeaders: requestHeaders, stored: stored, now: now)
        let (name, age) = describe(decision)

        var selfRevalidationApplies = false
        var mergeKeptContentLength = false
        if let head {
            let merged = CacheRevalidation.merge(
                notModifiedHeaders: head.headers, requestHeaders: requestHeaders, requestTime: now, responseTime: now,
                into: head)
            if case .updated(let updated, _) = merged {
                selfRevalidationApplies = true
                mergeKeptContentLength =
                    updated.headers.values(for: "Content-Length") == head.headers.values(for: "Content-Length")
            }
        }
        let target = URL(string: "https://example.com/resource") ?? URL(fileURLWithPath: "/")
        return Report(
            currentAge: CacheFreshness.currentAge(fields: fields, requestTime: base, responseTime: base, now: now),
            lifetime: CacheFreshness(status: status, fields: fields, responseTime: base).lifetime,
            isStored: stored != nil,
            requestNoStore: requestDirectives.noStore,
            responseNoStoreApplies: directives.noStore
                && !(directives.mustUnderstand && CacheStorability.understoodStatuses.contains(status)),
            varyAll: CacheVariant.nominatedFieldNames(responseHeaders) == nil,
            noCache: requestDirectives.noCache || directives.noCache,
            mustRevalidate: directives.mustRevalidate,
            onlyIfCached: requestDirectives.onlyIfCached,
            decision: name,
            ageFieldValue: age,
            variantMatchesOwnRequest: head?.variant.matches(requestHeaders) ?? false,
            staleIfErrorAge: head.flatMap {
                CacheStaleIfError.servableAge(after: .transport, requestHeaders: requestHeaders, stored: $0, now: now)
            },
            selfRevalidationApplies: selfRevalidationApplies,
            mergeKeptContentLength: mergeKeptContentLength,
            invalidatedKeys: CacheInvalidation.invalidatedKeys(
                method: .post, requestURL: target, status: 200, responseHeaders: ["Location": location]),
            targetKey: CacheInvalidation.primaryKey(for: target))
    }

    /// A decision's name, and the `Age` it sends.
    private static func describe(_ decision: CacheLookupDecision) -> (String, Int?) {
        switch decision {
        case .serveFresh(let age): ("serveFresh", age)
        case .serveStale(let age): ("serveStale", age)
        case .serveStaleWhileRevalidating(let age, _): ("serveStaleWhileRevalidating", age)
        case .revalidate: ("revalidate", nil)
        case .fetch: ("fetch", nil)
        case .gatewayTimeout: ("gatewayTimeout", nil)
        }
    }
}
