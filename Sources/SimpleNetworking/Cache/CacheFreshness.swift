import Foundation

/// How long a response stays fresh (RFC 9111 section 4.2.1), and how old a stored response is (section 4.2.3).
///
/// The freshness lifetime is the first of:
/// 1. `max-age` (`s-maxage` is for shared caches, so never here); an invalid or conflicting `max-age` is 0;
/// 2. `Expires` minus `Date` (or minus the time of receipt when `Date` is absent or invalid); an invalid `Expires`
///    is 0; never below 0;
/// 3. a heuristic (section 4.2.2), only for a status that is heuristically cacheable (``heuristicallyCacheable``)
///    or a response marked `public`: a tenth of the time between `Last-Modified` and `Date`, at most
///    ``heuristicLimit``;
/// 4. otherwise 0.
package struct CacheFreshness: Sendable, Equatable {
    /// Where a lifetime comes from.
    package enum Source: Sendable, Equatable {
        /// The `max-age` directive.
        case maxAge
        /// `Expires` minus `Date`.
        case expires
        /// A tenth of the time since `Last-Modified`.
        case heuristic
        /// Nothing: the lifetime is 0.
        case none
    }

    /// The freshness lifetime in seconds, 0 or more.
    package var lifetime: TimeInterval
    /// Where it comes from.
    package var source: Source

    /// The statuses RFC 9110 section 15.1 defines as heuristically cacheable.
    package static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The longest heuristic lifetime: one day. RFC 7234 section 4.2.2 asked for a warning on a response served
    /// more than a day past a heuristic expiry; staying within a day keeps every heuristic hit short of that, as
    /// common clients do, so a server that sends only `Last-Modified` is asked again at least daily.
    package static let heuristicLimit: TimeInterval = 86_400

    /// Creates a lifetime.
    /// - Parameters:
    ///   - lifetime: Seconds, 0 or more.
    ///   - source: Where it comes from.
    package init(lifetime: TimeInterval, source: Source) {
        self.lifetime = lifetime
        self.source = source
    }

    /// The freshness lifetime of a response.
    /// - Parameters:
    ///   - status: The response's status code.
    ///   - fields: The response's parsed fields.
    ///   - responseTime: When the response was received, which stands for a missing `Date`.
    package init(status: Int, fields: borrowing CacheResponseFields, responseTime: Date) {
        let dateValue = fields.date ?? responseTime
        if let maxAge = fields.cacheControl.maxAge {
            self.init(lifetime: TimeInterval(maxAge), source: .maxAge)
        } else if fields.expires != .absent {
            let lifetime =
                switch fields.expires {
                case .date(let expires): Self.nonNegative(expires.timeIntervalSince(dateValue))
                case .invalid, .absent: 0.0
                }
            self.init(lifetime: lifetime, source: .expires)
        } else if Self.heuristicallyCacheable.contains(status) || fields.cacheControl.isPublic,
            let lastModified = fields.lastModified
        {
            let lifetime = Self.nonNegative(dateValue.timeIntervalSince(lastModified)) / 10
            self.init(lifetime: min(lifetime, Self.heuristicLimit), source: .heuristic)
        } else {
            self.init(lifetime: 0, source: .none)
        }
    }

    /// The current age of a stored response in seconds (`current_age`, RFC 9111 section 4.2.3): the larger of its
    /// apparent age (receipt minus `Date`) and its `Age` plus the time the request took, plus the time it has been
    /// stored. Each term is at least 0, so a clock that went back never makes an age negative; the result is finite.
    /// - Parameters:
    ///   - fields: The stored response's parsed fields.
    ///   - requestTime: When the request that brought the response was sent.
    ///   - responseTime: When the response was received.
    ///   - now: The current time.
    /// - Returns: The age in seconds, 0 or more.
    package static func currentAge(
        fields: CacheResponseFields, requestTime: Date, responseTime: Date, now: Date
    ) -> TimeInterval {
        let apparentAge = nonNegative(responseTime.timeIntervalSince(fields.date ?? responseTime))
        let responseDelay = nonNegative(responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = TimeInterval(fields.age ?? 0) + responseDelay
        let residentTime = nonNegative(now.timeIntervalSince(responseTime))
        return nonNegative(max(apparentAge, correctedAgeValue) + residentTime)
    }

    /// The `Age` field value for a response of age `age`: whole seconds, at most 2^31.
    /// - Parameter age: The current age in seconds.
    /// - Returns: The value to send.
    package static func ageFieldValue(_ age: TimeInterval) -> Int {
        guard age.isFinite else { return CacheControl.deltaSecondsLimit }
        return Int(min(max(age, 0), TimeInterval(CacheControl.deltaSecondsLimit)).rounded(.down))
    }

    /// `value` when it is a number of 0 or more; 0 when negative; the delta-seconds limit when not finite.
    private static func nonNegative(_ value: TimeInterval) -> TimeInterval {
        guard !value.isNaN else { return 0 }
        guard value.isFinite else { return value > 0 ? TimeInterval(CacheControl.deltaSecondsLimit) : 0 }
        return max(value, 0)
    }
}
