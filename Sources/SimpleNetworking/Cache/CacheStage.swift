import Foundation

/// The client's HTTP cache (``SimpleNetworking/Configuration/cache``) as the last stage of an attempt's pipeline,
/// after every interceptor and before the redirects and the transport (<doc:HTTPCaching>).
///
/// It sees each request as it will be sent (the interceptors' headers included), and decides with the cache rules
/// (``CacheLookup``): answer from storage, send the request with validators and merge a `304`, or send it as it is
/// and store what may be stored. A request another method sends (`POST`, `PUT`, `PATCH`, `DELETE`) goes through, and
/// a success removes what is stored for its URL (``CacheInvalidation``). Responses that followed a redirect are not
/// stored: the stored response of a URL is the one its own server gave.
struct CacheStage: RequestInterceptor {
    let cache: HTTPCache
    /// The lookup already made for the attempt's request (``answerFromStorage(_:context:)``), used by the first
    /// ``intercept(_:context:next:)`` of that request instead of looking up again.
    var lookedUp: Lookup?

    /// What the cache found for a request: the stored response chosen for it and what to do. A class, as
    /// ``Stored`` is: it passes through several async frames, and a reference is one count to keep where the
    /// values inside are dozens (<doc:Performance>, "HTTP cache").
    final class Lookup: Sendable {
        let request: HTTPRequest
        let stored: Stored?
        let decision: CacheLookupDecision

        init(request: HTTPRequest, stored: Stored?, decision: CacheLookupDecision) {
            self.request = request
            self.stored = stored
            self.decision = decision
        }
    }

    /// The cache's stage, with the lookup of its request made already, when there is one.
    init(cache: HTTPCache, lookedUp: Lookup? = nil) {
        self.cache = cache
        self.lookedUp = lookedUp
    }

    /// Looks `request` up, and answers it from storage when the decision is to serve the stored response without
    /// the server (fresh, or stale as the request allows); otherwise hands back the lookup for the stage. When the
    /// cache is an attempt's only stage, a hit is answered so without the pipeline's task (<doc:Performance>, "HTTP
    /// cache"): the answer is the same as the stage's.
    /// - Returns: The response, when storage answers; else the lookup (`nil` when the cache takes no part).
    func answerFromStorage(_ request: HTTPRequest, context: InterceptorContext) -> (
        response: SimpleResponse?, lookup: Lookup
    )? {
        guard CacheLookup.takesPart(method: request.method, requestHeaders: request.headers) else { return nil }
        let lookup = self.lookup(request, context: context)
        switch lookup.decision {
        case .serveFresh(let age), .serveStale(let age):
            guard let stored = lookup.stored else { break }
            // A body that cannot be read is fetched by the stage, which looks up again.
            return (served(stored, age: age, source: .cache, for: request, context: context), lookup)
        default: break
        }
        return (nil, lookup)
    }

    /// Whether `lookup` leaves the stage nothing to do but send its request as it is and store the response: nothing
    /// stored answers it, validates it or falls back for it. The stage's ``intercept(_:context:next:)`` would then
    /// send through `next` and call ``store(_:for:sentAt:receivedAt:)``; an attempt whose only stage is the cache does
    /// both itself, without the stage's frames (<doc:Performance>, "HTTP cache").
    static func leavesOnlyStoring(_ lookup: Lookup) -> Bool {
        lookup.stored == nil && lookup.decision == .fetch
    }

    /// The stored response chosen for `request` and what to do with it.
    private func lookup(_ request: HTTPRequest, context: InterceptorContext) -> Lookup {
        let entries = cache.storage.variants(of: Self.key(for: request.url))
        // Heads read lazily: each entry's is made once and kept with it (CacheEntry.Derived).
        let heads = entries.lazy.map(Self.head(of:))
        let stored = CacheLookup.selected(among: heads, requestHeaders: request.headers).map {
            Stored(entry: entries[$0.index], head: $0.head)
        }
        // The request takes part (the callers checked), and the stored response was chosen for it.
        let decision = CacheLookup.decide(
            takingPart: request.headers, selected: stored?.head, now: context.client.configuration.clock.now())
        return Lookup(request: request, stored: stored, decision: decision)
    }

    func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        // A lookup made for this request already tells that it takes part.
        let reusable = lookedUp.flatMap { $0.request == request && !Self.servesFromStorage($0.decision) ? $0 : nil }
        guard reusable != nil || CacheLookup.takesPart(method: request.method, requestHeaders: request.headers) else {
            let response = try await next(request)
            invalidate(after: request, response: response)
            return response
        }
        let found = reusable ?? lookup(request, context: context)
        let stored = found.stored
        switch found.decision {
        case .serveFresh(let age), .serveStale(let age):
            if let stored, let response = served(stored, age: age, source: .cache, for: request, context: context) {
                return response
            }
            return try await fetch(request, stored: nil, context: context, next: next)
        case .serveStaleWhileRevalidating(let age, let validation):
            guard let stored, let response = served(stored, age: age, source: .cache, for: request, context: context)
            else { return try await fetch(request, stored: nil, context: context, next: next) }
            // The stale response answers now; the validation runs on its own and updates storage for the next one.
            let conditional = Self.adding(validation, to: request)
            // Its 304, merged, is announced as `cacheAnswered(source: .revalidated, ...)` after the request ended; a
            // full response that replaces the stored one, as `cacheStored(statusCode:)`.
            Task { _ = try? await revalidate(conditional, of: request, stored: stored, context: context, next: next) }
            return response
        case .revalidate(let validation):
            guard let stored else { return try await fetch(request, stored: nil, context: context, next: next) }
            return try await revalidate(
                Self.adding(validation, to: request), of: request, stored: stored, context: context, next: next)
        case .fetch:
            return try await fetch(request, stored: stored, context: context, next: next)
        case .gatewayTimeout:
            // only-if-cached, and nothing stored may answer (RFC 9111 section 5.2.1.7).
            let response = SimpleResponse(statusCode: 504, headers: [:], body: Data(), url: request.url, source: .cache)
            context.client.emit(
                .cacheAnswered(source: .cache, statusCode: 504), for: request, requestID: context.requestID)
            return response
        }
    }

    /// Whether `decision` answers from storage without the server: such a lookup that could not answer is made again.
    private static func servesFromStorage(_ decision: CacheLookupDecision) -> Bool {
        switch decision {
        case .serveFresh, .serveStale: true
        default: false
        }
    }

    // MARK: Sending

    /// A stored response and its head as the cache rules read it; a class for the reason ``Lookup`` is one.
    final class Stored: Sendable {
        let entry: CacheEntry
        let head: CachedResponseHead

        init(entry: CacheEntry, head: CachedResponseHead) {
            self.entry = entry
            self.head = head
        }
    }

    /// Sends `request` as it is and stores the response when it may be stored; after a failure or an error status,
    /// answers with `stored` instead when `stale-if-error` allows.
    private func fetch(
        _ request: HTTPRequest, stored: Stored?, context: InterceptorContext, next: InterceptorNext
    ) async throws(SimpleNetworkingError) -> SimpleResponse {
        let sent = try await send(request, for: request, fallingBackTo: stored, context: context, next: next)
        if case .network(let response, let sentAt, let receivedAt) = sent {
            store(response, for: request, sentAt: sentAt, receivedAt: receivedAt, context: context)
        }
        return sent.response
    }

    /// What ``send(_:for:fallingBackTo:context:next:)`` got.
    private enum Sent {
        /// The server's response, with when the request went and when the response came.
        case network(SimpleResponse, sentAt: Date, receivedAt: Date)
        /// The stored response, served after a failure under `stale-if-error`.
        case stale(SimpleResponse)

        var response: SimpleResponse {
            switch self {
            case .network(let response, _, _), .stale(let response): response
            }
        }
    }

    /// Sends `sending` (`request`, or it with validators) through the rest of the pipeline; after a failure or an
    /// error status, `stored` answers instead when `stale-if-error` allows.
    private func send(
        _ sending: HTTPRequest, for request: HTTPRequest, fallingBackTo stored: Stored?, context: InterceptorContext,
        next: InterceptorNext
    ) async throws(SimpleNetworkingError) -> Sent {
        let clock = context.client.configuration.clock
        let sentAt = clock.now()
        let response: SimpleResponse
        do {
            response = try await next(sending)
        } catch {
            if let stored, let stale = staleIfError(.transport, stored, for: request, context: context) {
                return .stale(stale)
            }
            throw error
        }
        if let stored, let stale = staleIfError(.status(response.statusCode), stored, for: request, context: context) {
            return .stale(stale)
        }
        return .network(response, sentAt: sentAt, receivedAt: clock.now())
    }

    /// Sends `conditional` (the request with the stored response's validators): a `304` that applies answers with the
    /// stored body and the merged header fields, stored again; any other answer is handled as a fetch.
    private func revalidate(
        _ conditional: HTTPRequest, of request: HTTPRequest, stored: Stored, context: InterceptorContext,
        next: InterceptorNext
    ) async throws(SimpleNetworkingError) -> SimpleResponse {
        let sent = try await send(conditional, for: request, fallingBackTo: stored, context: context, next: next)
        guard case .network(let response, let sentAt, let receivedAt) = sent else { return sent.response }
        guard response.statusCode == 304 else {
            store(response, for: request, sentAt: sentAt, receivedAt: receivedAt, context: context)
            return response
        }
        switch CacheRevalidation.merge(
            notModifiedHeaders: response.headers, requestHeaders: request.headers, requestTime: sentAt,
            responseTime: receivedAt, into: stored.head)
        {
        case .updated(let head, let storable):
            // The body is read before the entry may be removed: a 304 that forbids storing still answers with it.
            guard let body = cache.storage.body(of: stored.entry) else {
                // The stored body went meanwhile (evicted, damaged): ask for the whole response.
                return try await fetch(request, stored: nil, context: context, next: next)
            }
            var entry = stored.entry
            if storable {
                entry = cache.storage.replaceHead(with: Self.entry(stored, updatedTo: head)) ?? entry
            } else {
                cache.storage.removeVariants(of: stored.entry.key)
            }
            let updated = Stored(entry: entry, head: head)
            let age = CacheFreshness.ageFieldValue(
                CacheFreshness.currentAge(
                    fields: head.fields, requestTime: head.requestTime, responseTime: head.responseTime,
                    now: receivedAt))
            return served(updated, body: body, age: age, source: .revalidated, for: request, context: context)
        case .notApplicable:
            return try await fetch(request, stored: nil, context: context, next: next)
        }
    }

    // MARK: Answering from storage

    /// The stored response as an answer to `request`, with `Age` set, or `nil` when its body cannot be read.
    private func served(
        _ stored: Stored, age: Int, source: ResponseSource, for request: HTTPRequest, context: InterceptorContext
    ) -> SimpleResponse? {
        guard let body = cache.storage.body(of: stored.entry) else { return nil }
        return served(stored, body: body, age: age, source: source, for: request, context: context)
    }

    /// The stored response with `body` as an answer to `request`, with `Age` set.
    private func served(
        _ stored: Stored, body: Data, age: Int, source: ResponseSource, for request: HTTPRequest,
        context: InterceptorContext
    ) -> SimpleResponse {
        var headers = stored.head.headers
        headers["Age"] = String(age)
        let response = SimpleResponse(
            statusCode: stored.head.status, headers: headers, body: body, url: request.url, source: source)
        context.client.emit(
            .cacheAnswered(source: source, statusCode: response.statusCode), for: request, requestID: context.requestID)
        return response
    }

    /// `stored`, when `stale-if-error` lets it answer after `failure`.
    private func staleIfError(
        _ failure: CacheStaleIfError.Failure, _ stored: Stored, for request: HTTPRequest, context: InterceptorContext
    ) -> SimpleResponse? {
        guard
            let age = CacheStaleIfError.servableAge(
                after: failure, requestHeaders: request.headers, stored: stored.head,
                now: context.client.configuration.clock.now())
        else { return nil }
        return served(stored, age: age, source: .cache, for: request, context: context)
    }

    // MARK: Storing and invalidating

    /// Stores `response` to `request` when the rules allow it and it came from the request's own URL, and reports
    /// ``NetworkEvent/Kind/cacheStored(statusCode:)`` when it is stored.
    func store(
        _ response: SimpleResponse, for request: HTTPRequest, sentAt: Date, receivedAt: Date,
        context: InterceptorContext
    ) {
        guard
            CacheStorability.refusal(
                method: request.method, requestHeaders: request.headers, status: response.statusCode,
                responseHeaders: response.headers, responseTime: receivedAt) == nil,
            response.url.map({ $0 == request.url || Self.key(for: $0) == Self.key(for: request.url) }) ?? true,
            let head = CachedResponseHead(
                status: response.statusCode, responseHeaders: response.headers, requestHeaders: request.headers,
                requestTime: sentAt, responseTime: receivedAt)
        else { return }
        guard cache.storage.store(Self.entry(key: Self.key(for: request.url), head: head), body: response.body) != nil
        else { return }
        context.client.emit(
            .cacheStored(statusCode: response.statusCode), for: request, requestID: context.requestID)
    }

    /// After an unsafe method's success, removes what is stored for the URLs it changed.
    private func invalidate(after request: HTTPRequest, response: SimpleResponse) {
        for key in CacheInvalidation.invalidatedKeys(
            method: request.method, requestURL: request.url, status: response.statusCode,
            responseHeaders: response.headers)
        {
            cache.storage.removeVariants(of: CacheEntry.Key(method: "GET", url: key))
        }
    }

    // MARK: Between the rules and the storage

    /// The storage key of a `GET` of `url`.
    static func key(for url: URL) -> CacheEntry.Key {
        CacheEntry.Key(method: "GET", url: CacheInvalidation.primaryKey(for: url))
    }

    /// The names of the variant's two parts in a stored entry: the fields `Vary` nominates, and their digest.
    private static let (varyName, digestName) = ("vary", "variant")

    /// An entry to store for `head` under `key`.
    static func entry(key: CacheEntry.Key, head: CachedResponseHead) -> CacheEntry {
        CacheEntry(
            key: key,
            varyValues: [varyName: head.variant.fieldNames.joined(separator: ","), digestName: head.variant.key],
            status: head.status, headers: head.headers, requestTime: head.requestTime,
            responseTime: head.responseTime)
    }

    /// The stored entry with the header fields and times a `304` updated it to, its variant and body kept.
    static func entry(_ stored: Stored, updatedTo head: CachedResponseHead) -> CacheEntry {
        let updated = stored.entry.updated(
            headers: head.headers, requestTime: head.requestTime, responseTime: head.responseTime)
        // The head the next lookup reads is this one, with the variant the entry keeps: seeded, its fields parsed.
        var kept = head
        kept.variant = stored.head.variant
        _ = updated.derived.head { kept }
        return updated
    }

    /// The head the cache rules read from a stored entry, made once for each stored copy.
    static func head(of entry: CacheEntry) -> CachedResponseHead {
        entry.derived.head { madeHead(of: entry) }
    }

    /// The head of `entry`, made anew.
    private static func madeHead(of entry: CacheEntry) -> CachedResponseHead {
        let values = entry.varyValues
        let names = (values[varyName] ?? nil)?.split(separator: ",").map(String.init) ?? []
        let variant = CacheVariant(fieldNames: names, key: (values[digestName] ?? nil) ?? "")
        return CachedResponseHead(
            status: entry.status, headers: entry.headers, requestTime: entry.requestTime,
            responseTime: entry.responseTime, variant: variant)
    }

    /// `request` with the validation's precondition fields, added: a request the cache takes part in has none of
    /// its own (``CacheLookup/bypassingFields``), so there is nothing to replace.
    static func adding(_ validation: CacheValidation, to request: HTTPRequest) -> HTTPRequest {
        var request = request
        for field in validation.headerFields { request.headers.add(name: field.name, value: field.value) }
        return request
    }
}
