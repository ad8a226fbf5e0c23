import Foundation

/// Whether a stored response may answer a request whose revalidation failed (`stale-if-error`, RFC 5861 section 4;
/// RFC 9111 section 4.3.3).
///
/// A failure is a transport error (no response) or a `500`, `502`, `503` or `504`: the statuses RFC 5861 names. The
/// stored response may then be served when:
/// - neither the request nor the response says `no-cache`, and the response does not say `must-revalidate`: those
///   forbid any use without a successful validation (RFC 9111 sections 4.2.4, 5.2.2.2), stale-if-error or not;
/// - and a `stale-if-error` window, the response's or the request's (either party may allow it, RFC 5861), is
///   longer than the time the response has been stale (a response that is still fresh qualifies).
///
/// Without `stale-if-error` a stale response is never served on error, not even when the server is unreachable:
/// RFC 9111 section 4.2.4 allows it for a disconnected cache, but an application client that hides a failure by
/// serving stale data without being asked would surprise. A request opts in with
/// `Cache-Control: stale-if-error=<seconds>`.
package enum CacheStaleIfError {
    /// How revalidation failed.
    package enum Failure: Sendable, Equatable {
        /// No response: the connection failed or broke.
        case transport
        /// A response with this status.
        case status(Int)
    }

    /// The statuses that count as an error (RFC 5861 section 4).
    package static let errorStatuses: Set<Int> = [500, 502, 503, 504]

    /// The `Age` value to serve the stored response with, or `nil` when it may not be served and the failure goes
    /// to the caller.
    /// - Parameters:
    ///   - failure: How revalidation failed.
    ///   - requestHeaders: The request's header fields.
    ///   - stored: The stored response that was being revalidated.
    ///   - now: The current time.
    /// - Returns: The `Age` value, or `nil`.
    package static func servableAge(
        after failure: Failure, requestHeaders: HTTPHeaders, stored: CachedResponseHead, now: Date
    ) -> Int? {
        if case .status(let status) = failure, !errorStatuses.contains(status) { return nil }
        let request = CacheControl(requestHeaders: requestHeaders)
        let fields = stored.fields
        let response = fields.cacheControl
        guard !request.noCache, !response.noCache, !response.mustRevalidate else { return nil }
        let window = max(response.staleIfError ?? 0, request.staleIfError ?? 0)
        guard window > 0 else { return nil }
        let age = CacheFreshness.currentAge(
            fields: fields, requestTime: stored.requestTime, responseTime: stored.responseTime, now: now)
        let lifetime = CacheFreshness(status: stored.status, fields: fields, responseTime: stored.responseTime).lifetime
        guard age < lifetime + TimeInterval(window) else { return nil }
        return CacheFreshness.ageFieldValue(age)
    }
}
