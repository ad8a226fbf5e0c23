import Foundation

/// Whether a private cache stores a response (RFC 9111 section 3), and if not, why.
///
/// A response is stored when all of these hold:
/// - the request method is `GET`. `HEAD` is not stored: a stored `HEAD` response could only update or answer other
///   `HEAD` requests (section 4.3.5), little use to an API client. `POST` is not stored either, even with
///   `Content-Location` (section 9.3.3 of RFC 9110 allows it; no common client does).
/// - the status is final and not `206` or `304`: partial content is never combined here (section 3.3), and a `304`
///   only updates a stored response (``CacheRevalidation``);
/// - neither the request nor the response has `no-store`, except that a response with `must-understand` and a
///   status this cache understands (``understoodStatuses``) is stored despite `no-store`, and one with
///   `must-understand` and any other status is not stored at all (section 5.2.2.3);
/// - its `Vary` does not hold `*`;
/// - it may be stored (section 3): `public`, `private`, `Expires`, `max-age`, or a heuristically cacheable status;
/// - and it is of use: it has a validator (`ETag`, `Last-Modified`), or, without `no-cache`, a freshness lifetime
///   above 0 or a `stale-while-revalidate` or `stale-if-error` window. Section 3 notes that caches commonly skip
///   responses with neither a validator nor an explicit expiry; one that is stale on arrival and cannot be
///   validated could only ever be fetched again.
///
/// A request with `Authorization` does not stop storage: section 3.5 restricts shared caches only, and browsers and
/// OkHttp store such responses in their private caches. What this cache adds is that the credentials are part of
/// the response's ``CacheVariant``, so the response only ever answers requests with the same credentials.
package enum CacheStorability {
    /// Why a response is not stored.
    package enum Refusal: Sendable, Equatable {
        /// The request method is not `GET`.
        case method
        /// The status is not final, or is `304`, or is one `must-understand` requires this cache to understand and
        /// it does not.
        case status
        /// The status is `206`.
        case partialContent
        /// The request has `no-store`.
        case requestNoStore
        /// The response has `no-store` (without `must-understand` for an understood status).
        case responseNoStore
        /// The response's `Vary` holds `*`.
        case varyAll
        /// Nothing in the response allows storing it (section 3).
        case notCacheable
        /// It could never be reused: no validator, and no freshness nor stale window (or `no-cache`).
        case notReusable
    }

    /// The statuses this cache understands, for `must-understand`: the final statuses RFC 9110 section 15 defines,
    /// except `206` and `304`, which it does not store.
    package static let understoodStatuses: Set<Int> = [
        200, 201, 202, 203, 204, 205, 300, 301, 302, 303, 305, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407,
        408, 409, 410, 411, 412, 413, 414, 415, 416, 417, 421, 422, 426, 500, 501, 502, 503, 504, 505,
    ]

    /// Why a response is not stored, or `nil` when it is.
    /// - Parameters:
    ///   - method: The request's method.
    ///   - requestHeaders: The request's header fields.
    ///   - status: The response's status code.
    ///   - responseHeaders: The response's header fields.
    ///   - responseTime: When the response was received, for its dates.
    /// - Returns: The reason it is not stored, or `nil` to store it.
    package static func refusal(
        method: HTTPMethod, requestHeaders: HTTPHeaders, status: Int, responseHeaders: HTTPHeaders, responseTime: Date
    ) -> Refusal? {
        refusal(
            method: method, requestHeaders: requestHeaders, status: status, responseTime: responseTime,
            directives: { CacheControl(responseHeaders: responseHeaders) },
            fields: { CacheResponseFields(responseHeaders, now: responseTime) },
            varyAll: { CacheVariant.nominatedFieldNames(responseHeaders) == nil })
    }

    /// Why a response is not stored, or `nil` when it is, with its fields parsed already (a stored head's). Its
    /// `Vary` is not read: a head has a variant, and a `Vary` with `*` has none (``CacheVariant``), so whoever made
    /// the head's variant from its fields has checked that already, as `CacheRevalidation.merge` does.
    /// - Parameters:
    ///   - method: The request's method.
    ///   - requestHeaders: The request's header fields.
    ///   - head: The response as it would be stored.
    /// - Returns: The reason it is not stored, or `nil` to store it.
    package static func refusal(method: HTTPMethod, requestHeaders: HTTPHeaders, head: CachedResponseHead)
        -> Refusal?
    {
        refusal(
            method: method, requestHeaders: requestHeaders, status: head.status, responseTime: head.responseTime,
            directives: { head.fields.cacheControl }, fields: { head.fields }, varyAll: { false })
    }

    /// The rules of both forms above. The directives are asked for once the status and method allow storing, and
    /// the other fields (dates, validators) only once the directives do: a `no-store` response is refused without
    /// reading its dates.
    private static func refusal(
        method: HTTPMethod, requestHeaders: HTTPHeaders, status: Int, responseTime: Date,
        directives parsedDirectives: () -> CacheControl, fields parsedFields: () -> CacheResponseFields,
        varyAll: () -> Bool
    ) -> Refusal? {
        guard method.rawValue == "GET" else { return .method }
        guard status != 206 else { return .partialContent }
        guard (200...599).contains(status), status != 304 else { return .status }
        if CacheControl(requestHeaders: requestHeaders).noStore { return .requestNoStore }
        let directives = parsedDirectives()
        if directives.mustUnderstand {
            guard understoodStatuses.contains(status) else { return .status }
        } else if directives.noStore {
            return .responseNoStore
        }
        let fields = parsedFields()
        guard !varyAll() else { return .varyAll }
        let mayStore =
            directives.isPublic || directives.isPrivate || fields.expires != .absent || directives.maxAge != nil
            || CacheFreshness.heuristicallyCacheable.contains(status)
        guard mayStore else { return .notCacheable }
        let freshness = CacheFreshness(status: status, fields: fields, responseTime: responseTime)
        let reusableUnvalidated =
            !directives.noCache
            && (freshness.lifetime > 0 || (directives.staleWhileRevalidate ?? 0) > 0
                || (directives.staleIfError ?? 0) > 0)
        guard fields.hasValidator || reusableUnvalidated else { return .notReusable }
        return nil
    }
}
