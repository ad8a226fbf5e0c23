import Foundation

/// What the cache does with a request, given what it holds (``CacheLookup/decide(method:requestHeaders:stored:now:)``).
package enum CacheLookupDecision: Sendable, Equatable {
    /// Answer with the stored response, fresh, sending this `Age` value.
    case serveFresh(age: Int)
    /// Answer with the stored response though it is stale, as the request allows (`max-stale`, or `only-if-cached`
    /// within a `stale-while-revalidate` window), sending this `Age` value. Nothing is sent to the server.
    case serveStale(age: Int)
    /// Answer with the stale stored response, sending this `Age` value, and revalidate it in the background with
    /// these fields (none: an unconditional request) (`stale-while-revalidate`, RFC 5861 section 3).
    case serveStaleWhileRevalidating(age: Int, validation: CacheValidation)
    /// Send the request with these precondition fields; a `304` is merged into the stored response
    /// (``CacheRevalidation``), anything else replaces it.
    case revalidate(CacheValidation)
    /// Send the request as it is: nothing stored can answer it, or the cache does not take part.
    case fetch
    /// Answer `504 (Gateway Timeout)` without sending anything: the request said `only-if-cached` and nothing stored
    /// may answer it (RFC 9111 section 5.2.1.7).
    case gatewayTimeout
}

/// The lookup rules of a private cache (RFC 9111 section 4): which stored response answers a request, and how.
///
/// The cache takes part in `GET` requests only, without `Range` and without preconditions of their own
/// (`If-None-Match`, `If-Modified-Since`, `If-Match`, `If-Unmodified-Since`, `If-Range`): a request that brings its
/// own conditions is the application's own validation, sent as it is (the cache does not answer it with a `304`
/// from storage, which section 4.3.2 allows but does not require). Another method is written through
/// (``CacheLookupDecision/fetch``, section 4) and may invalidate (``CacheInvalidation``).
///
/// For a stored response, with its current age and freshness lifetime (``CacheFreshness``):
/// 1. unless the request or the response says `no-cache` (or the request `Pragma: no-cache`), it is served fresh
///    when its age plus the request's `min-fresh` is below its lifetime, cut to the request's `max-age`. A fresh
///    `immutable` response ignores the request's `max-age` (a reload's `max-age=0`, RFC 8246) but not `no-cache`,
///    which the client requires;
/// 2. still without `no-cache`, and without `must-revalidate` (which forbids any stale use, section 5.2.2.2):
///    served stale when within the request's `max-stale`; or, when the request sets none of `max-age`, `min-fresh`,
///    served stale while revalidating within the response's `stale-while-revalidate` window (with `only-if-cached`,
///    served stale without the background request);
/// 3. otherwise `504` for `only-if-cached`, else revalidated with ``CacheValidation``, or fetched when it has no
///    validator.
///
/// A request's `no-store` does not keep a stored response from answering it (section 5.2.1.5 says so); it only
/// keeps the new response out of storage (``CacheStorability``). `proxy-revalidate` and `s-maxage` are for shared
/// caches and ignored.
package enum CacheLookup {
    /// The request fields that make a `GET` one the cache does not answer.
    package static let bypassingFields = [
        "Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range",
    ]

    /// Whether the cache takes part in a request at all: a `GET` without ``bypassingFields``.
    /// - Parameters:
    ///   - method: The request's method.
    ///   - requestHeaders: The request's header fields.
    /// - Returns: `true` when a stored response may answer it.
    package static func takesPart(method: HTTPMethod, requestHeaders: HTTPHeaders) -> Bool {
        method.rawValue == "GET" && !bypassingFields.contains { requestHeaders.contains($0) }
    }

    /// Which of the stored responses for a URL may answer a request: those whose ``CacheVariant`` matches it, the
    /// most recent by `Date` (by time of receipt without one) when several do (section 4.1).
    /// - Parameters:
    ///   - candidates: The responses stored for the request's URL.
    ///   - requestHeaders: The request's header fields.
    /// - Returns: The index of the chosen response and the response, read once, or `nil` when none matches.
    package static func selected<Candidates: RandomAccessCollection<CachedResponseHead>>(
        among candidates: Candidates, requestHeaders: HTTPHeaders
    ) -> (index: Candidates.Index, head: CachedResponseHead)? {
        var chosen: (index: Candidates.Index, head: CachedResponseHead, date: Date)?
        for index in candidates.indices {
            let candidate = candidates[index]
            guard candidate.variant.matches(requestHeaders) else { continue }
            let date = candidate.fields.date ?? candidate.responseTime
            if chosen.map({ date >= $0.date }) ?? true { chosen = (index, candidate, date) }
        }
        return chosen.map { ($0.index, $0.head) }
    }

    /// What to do with a request, given the stored response chosen for it.
    /// - Parameters:
    ///   - method: The request's method.
    ///   - requestHeaders: The request's header fields.
    ///   - stored: The stored response chosen for it (``selected(among:requestHeaders:)``), or `nil`. One whose
    ///     variant does not match the request counts as none.
    ///   - now: The current time.
    /// - Returns: The decision.
    package static func decide(
        method: HTTPMethod, requestHeaders: HTTPHeaders, stored: CachedResponseHead?, now: Date
    ) -> CacheLookupDecision {
        guard method.rawValue == "GET" else { return .fetch }
        let takingPart = takesPart(method: method, requestHeaders: requestHeaders)
        let selected = stored.flatMap { takingPart && $0.variant.matches(requestHeaders) ? $0 : nil }
        return decide(takingPart: requestHeaders, selected: selected, now: now)
    }

    /// ``decide(method:requestHeaders:stored:now:)`` for a request the cache takes part in
    /// (``takesPart(method:requestHeaders:)``), with the stored response ``selected(among:requestHeaders:)`` chose
    /// for it: the cache's stage has checked both already.
    static func decide(takingPart requestHeaders: HTTPHeaders, selected stored: CachedResponseHead?, now: Date)
        -> CacheLookupDecision
    {
        let request = CacheControl(requestHeaders: requestHeaders)
        guard let stored else { return request.onlyIfCached ? .gatewayTimeout : .fetch }
        // The stored fields, parsed when the head was made, are shared, not copied (CacheResponseFields).
        let fields = stored.fields
        let response = fields.cacheControl
        let age = CacheFreshness.currentAge(
            fields: fields, requestTime: stored.requestTime, responseTime: stored.responseTime, now: now)
        let lifetime = CacheFreshness(status: stored.status, fields: fields, responseTime: stored.responseTime).lifetime
        let ageValue = CacheFreshness.ageFieldValue(age)
        let validation = CacheValidation(fields: fields)

        if !request.noCache, !response.noCache {
            let freshByResponse = age < lifetime
            var limit = lifetime
            if let maxAge = request.maxAge, !(response.immutable && freshByResponse) {
                limit = min(limit, TimeInterval(maxAge))
            }
            let minFresh = TimeInterval(request.minFresh ?? 0)
            if age + minFresh < limit { return .serveFresh(age: ageValue) }
            if !response.mustRevalidate {
                if let maxStale = request.maxStale {
                    let allowance =
                        switch maxStale {
                        case .any: TimeInterval.infinity
                        case .seconds(let seconds): TimeInterval(seconds)
                        }
                    if age + minFresh < limit + allowance { return .serveStale(age: ageValue) }
                }
                if let window = response.staleWhileRevalidate, request.maxAge == nil, request.minFresh == nil,
                    !freshByResponse, age < lifetime + TimeInterval(window)
                {
                    return request.onlyIfCached
                        ? .serveStale(age: ageValue)
                        : .serveStaleWhileRevalidating(age: ageValue, validation: validation)
                }
            }
        }
        if request.onlyIfCached { return .gatewayTimeout }
        return validation.isConditional ? .revalidate(validation) : .fetch
    }
}
