import Foundation
import SimpleNetworking
import Testing

/// One case of the cache conformance tables: a response stored for a first request, then a second request some
/// seconds later, and what the cache does with it.
///
/// Dates in the fields are written relative to the moment the response arrives (``CacheScenario/base``) with
/// ``httpDate(_:)``: `httpDate(-10)` is ten seconds before it.
struct CacheCase: Sendable, CustomTestStringConvertible {
    /// The case's name: the conformance suite's id, or a name of ours for cases it has not.
    var id: String
    /// The first request's method.
    var method: HTTPMethod = .get
    /// The first request's fields.
    var firstRequest: [(String, String)] = []
    /// The response's status.
    var status = 200
    /// The response's fields.
    var response: [(String, String)] = []
    /// The second request's fields.
    var request: [(String, String)] = []
    /// Seconds between the response's arrival and the second request.
    var elapsed: TimeInterval = 3
    /// What the cache does with the second request.
    var expected: CacheOutcome

    var testDescription: String { id }
}

/// What a cache does with the second request of a ``CacheCase``.
enum CacheOutcome: Equatable, Sendable, CustomStringConvertible {
    /// The response was not stored, for this reason: the second request goes to the network.
    case notStored(CacheStorability.Refusal)
    /// The stored response answers, fresh.
    case fresh
    /// The stored response answers, stale, as the request allows.
    case stale
    /// The stored response answers, stale, and is revalidated in the background with these fields.
    case staleWhileRevalidating(CacheValidation)
    /// The request goes out with these precondition fields.
    case revalidate(CacheValidation)
    /// The request goes out unconditionally, the stored response unused.
    case fetch
    /// `504` without a request.
    case gatewayTimeout

    /// Revalidation with `If-None-Match: tag`.
    static func etag(_ tag: String) -> CacheOutcome { .revalidate(CacheValidation(ifNoneMatch: tag)) }

    /// Revalidation with `If-Modified-Since` at `offset` seconds from the response's arrival.
    static func modifiedSince(_ offset: TimeInterval) -> CacheOutcome {
        .revalidate(CacheValidation(ifModifiedSince: httpDate(offset)))
    }

    var description: String {
        switch self {
        case .notStored(let refusal): "not stored (\(refusal))"
        case .fresh: "fresh"
        case .stale: "stale"
        case .staleWhileRevalidating(let validation): "stale while revalidating \(validation)"
        case .revalidate(let validation): "revalidate \(validation)"
        case .fetch: "fetch"
        case .gatewayTimeout: "504"
        }
    }
}

/// Runs ``CacheCase``s through the rules: storability, the head stored, then the lookup decision.
enum CacheScenario {
    /// The moment the response arrives: Mon, 01 Jan 2024 00:00:00 GMT.
    static let base = Date(timeIntervalSince1970: 1_704_067_200)

    /// The head stored for a case's response, or why it is not stored.
    static func store(_ row: CacheCase) -> Result<CachedResponseHead, RefusalError> {
        let firstRequest = headers(row.firstRequest)
        let response = headers(row.response)
        if let refusal = CacheStorability.refusal(
            method: row.method, requestHeaders: firstRequest, status: row.status, responseHeaders: response,
            responseTime: base)
        {
            return .failure(RefusalError(refusal: refusal))
        }
        guard
            let head = CachedResponseHead(
                status: row.status, responseHeaders: response, requestHeaders: firstRequest, requestTime: base,
                responseTime: base)
        else { return .failure(RefusalError(refusal: .varyAll)) }
        return .success(head)
    }

    /// What the cache does with a case's second request.
    static func outcome(_ row: CacheCase) -> CacheOutcome {
        let stored = store(row)
        let decision = CacheLookup.decide(
            method: .get, requestHeaders: headers(row.request), stored: try? stored.get(),
            now: base.addingTimeInterval(row.elapsed))
        if case .failure(let error) = stored, decision == .fetch { return .notStored(error.refusal) }
        return outcome(of: decision)
    }

    /// A decision as an outcome, its `Age` aside.
    static func outcome(of decision: CacheLookupDecision) -> CacheOutcome {
        switch decision {
        case .serveFresh: .fresh
        case .serveStale: .stale
        case .serveStaleWhileRevalidating(_, let validation): .staleWhileRevalidating(validation)
        case .revalidate(let validation): .revalidate(validation)
        case .fetch: .fetch
        case .gatewayTimeout: .gatewayTimeout
        }
    }

    /// Header fields from name and value pairs, in order.
    static func headers(_ pairs: [(String, String)]) -> HTTPHeaders {
        HTTPHeaders(pairs.map { HTTPHeaders.Field(name: $0.0, value: $0.1) })
    }

    /// A refusal as an error, to travel in a `Result`.
    struct RefusalError: Error {
        var refusal: CacheStorability.Refusal
    }
}

/// The IMF-fixdate `offset` seconds from ``CacheScenario/base``.
func httpDate(_ offset: TimeInterval) -> String {
    CacheDate.imfFixdate(CacheScenario.base.addingTimeInterval(offset)) ?? "not a date"
}
