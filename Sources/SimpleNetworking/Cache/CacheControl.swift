import Foundation

/// The `Cache-Control` directives of a request or a response (RFC 9111 section 5.2), read from any number of field
/// lines with ``CacheDirective``'s tolerant reader: names without regard to case, arguments as tokens or quoted
/// strings, unknown directives ignored (section 5.2.3). Any bytes parse; none traps.
///
/// Where a value is missing, invalid or given twice with different values, the most restrictive reading is taken
/// (section 4.2.1):
///
/// | directive | invalid or malformed argument | several different values |
/// |---|---|---|
/// | `max-age` | 0: the response is stale, the request wants validation | 0 |
/// | `s-maxage` | 0 (parsed, but a private cache ignores it) | the smallest |
/// | `min-fresh` | 2^31: nothing is fresh enough | the largest |
/// | `max-stale` | 0 (no value at all means any staleness) | the smallest |
/// | `stale-while-revalidate`, `stale-if-error` | 0 | the smallest |
///
/// A delta-seconds value past 2^31 is 2^31 (``deltaSecondsLimit``, section 1.2.2). `no-store`, `no-cache`,
/// `must-revalidate`, `proxy-revalidate`, `private` and `only-if-cached` take effect in any form, an argument or
/// a malformed one included; `public`, `immutable` and `must-understand`, which grant rather than restrict, only
/// without an argument.
///
/// A qualified `no-cache="Field"` is read as a plain `no-cache` (the names are kept in ``noCacheFieldNames``): the
/// cache revalidates the whole response instead of omitting the named fields, which section 5.2.2.4 notes is how
/// caches commonly handle it and which is never less safe.
package struct CacheControl: Sendable, Equatable {
    /// The `max-stale` request directive.
    package enum MaxStale: Sendable, Equatable {
        /// Without a value: a stale response of any age is acceptable.
        case any
        /// A response at most this many seconds stale is acceptable.
        case seconds(Int)
    }

    /// 2^31, the value RFC 9111 section 1.2.2 gives to a delta-seconds too large to represent: the largest
    /// argument held here.
    package static let deltaSecondsLimit = 2_147_483_648

    /// `no-store`, in a request or a response: nothing of the exchange is stored.
    package var noStore = false
    /// `no-cache`, in a request (validate before reusing anything) or a response (validate before each reuse), in
    /// either form.
    package var noCache = false
    /// The field names of a qualified response `no-cache`, in lower case; the directive applies whole anyway.
    package var noCacheFieldNames: [String] = []
    /// `max-age` in seconds: the response's freshness lifetime, or the oldest response a request accepts.
    package var maxAge: Int?
    /// `s-maxage` in seconds: for shared caches only; a private cache ignores it (section 5.2.2.10).
    package var sharedMaxAge: Int?
    /// `max-stale` (request): how stale a response the client accepts.
    package var maxStale: MaxStale?
    /// `min-fresh` (request) in seconds: how long a response must stay fresh to be acceptable.
    package var minFresh: Int?
    /// `only-if-cached` (request): answer from storage or with 504, never from the network.
    package var onlyIfCached = false
    /// `must-revalidate` (response): never served stale.
    package var mustRevalidate = false
    /// `proxy-revalidate` (response): `must-revalidate` for shared caches only; a private cache ignores it.
    package var proxyRevalidate = false
    /// `private` (response): storable by a private cache like this one.
    package var isPrivate = false
    /// `public` (response): storable, and heuristically fresh whatever its status.
    package var isPublic = false
    /// `immutable` (response, RFC 8246): a fresh response is not revalidated when a client reloads.
    package var immutable = false
    /// `must-understand` (response): stored only when the cache understands the status code; `no-store` then
    /// yields to it (section 5.2.2.3).
    package var mustUnderstand = false
    /// `stale-while-revalidate` (response, RFC 5861) in seconds: how long a stale response may be served while it
    /// is revalidated in the background.
    package var staleWhileRevalidate: Int?
    /// `stale-if-error` (response or request, RFC 5861) in seconds: how long a stale response may be served when
    /// revalidation fails.
    package var staleIfError: Int?

    /// No directive at all.
    package init() {}

    /// The directives of a request: its `Cache-Control` field lines, or when it has none, `Pragma: no-cache` as
    /// `no-cache` (RFC 7234 section 5.4; RFC 9111 section 5.4 deprecates `Pragma` but keeps it a request's only
    /// cache directive when `Cache-Control` is absent).
    /// - Parameter headers: The request's header fields.
    package init(requestHeaders headers: HTTPHeaders) {
        // One pass over the fields for both names: most requests have neither, and every request is read so.
        var lines: [String] = []
        var pragmas: [String] = []
        for field in headers.fields {
            if field.name.equalsIgnoringASCIICase("Cache-Control") {
                lines.append(field.value)
            } else if field.name.equalsIgnoringASCIICase("Pragma") {
                pragmas.append(field.value)
            }
        }
        guard lines.isEmpty else {
            self.init(directives: CacheDirective.parse(lines))
            return
        }
        self.init()
        noCache = !pragmas.isEmpty && CacheDirective.parse(pragmas).contains { $0.name == "no-cache" }
    }

    /// The directives of a response's `Cache-Control` field lines (`Pragma` in a response means nothing,
    /// RFC 9111 section 5.4).
    /// - Parameter headers: The response's header fields.
    package init(responseHeaders headers: HTTPHeaders) {
        let lines = headers.values(for: "Cache-Control")
        self.init(responseLine: lines.first, then: Array(lines.dropFirst()))
    }

    /// The directives of a response's `Cache-Control` field lines: `first`, then `more`, given apart so that the
    /// usual single line needs no list. The last single line read and its directives are kept: an API's responses
    /// mostly repeat one value, and a `304` repeats that of the response it validates, so most lines are read without
    /// parsing (<doc:Performance>, "HTTP cache").
    /// - Parameters:
    ///   - first: The first field value, `nil` when there is none.
    ///   - more: The field values after it.
    package init(responseLine first: String?, then more: [String] = []) {
        guard let line = first, more.isEmpty else {
            self.init(directives: CacheDirective.parse(first.map { [$0] + more } ?? []))
            return
        }
        if let known = Self.lastResponseLine.withLock({ $0?.line == line ? $0?.directives : nil }) {
            self = known
            return
        }
        self.init(directives: CacheDirective.parse(CollectionOfOne(line)))
        Self.lastResponseLine.set((line, self))
    }

    /// The last single line ``init(responseLine:then:)`` read, and its directives.
    private static let lastResponseLine = Locked<(line: String, directives: CacheControl)?>(nil)

    /// The directives read from a parsed list, with the readings in the table above.
    /// - Parameter directives: The list, in order.
    package init(directives: [CacheDirective]) {
        // Each repeated directive folds into one value as it comes (no lists: most heads have two directives).
        var maxAges: (first: Int, agreed: Bool)?
        func least(_ current: Int?, _ next: Int) -> Int { current.map { min($0, next) } ?? next }
        for directive in directives {
            let argument = directive.argument
            switch directive.name {
            case "no-store": noStore = true
            case "no-cache":
                noCache = true
                if let names = argument.text { noCacheFieldNames += Self.fieldNames(names) }
            case "max-age":
                let seconds = Self.seconds(argument) ?? 0
                maxAges = maxAges.map { ($0.first, $0.agreed && $0.first == seconds) } ?? (seconds, true)
            case "s-maxage": sharedMaxAge = least(sharedMaxAge, Self.seconds(argument) ?? 0)
            case "min-fresh":
                let seconds = Self.seconds(argument) ?? Self.deltaSecondsLimit
                minFresh = minFresh.map { max($0, seconds) } ?? seconds
            case "max-stale":
                let next: MaxStale = argument == .none ? .any : .seconds(Self.seconds(argument) ?? 0)
                switch (maxStale, next) {
                case (nil, _), (.any?, _): maxStale = next
                case (.seconds(let a)?, .seconds(let b)): maxStale = .seconds(min(a, b))
                case (.seconds?, .any): break
                }
            case "only-if-cached": onlyIfCached = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "private": isPrivate = true
            case "public": isPublic = isPublic || argument == .none
            case "immutable": immutable = immutable || argument == .none
            case "must-understand": mustUnderstand = mustUnderstand || argument == .none
            case "stale-while-revalidate":
                staleWhileRevalidate = least(staleWhileRevalidate, Self.seconds(argument) ?? 0)
            case "stale-if-error": staleIfError = least(staleIfError, Self.seconds(argument) ?? 0)
            default: break
            }
        }
        // Conflicting `max-age` values make the response stale (0).
        maxAge = maxAges.map { $0.agreed ? $0.first : 0 }
    }

    /// The seconds of a delta-seconds argument (section 1.2.2; as a token or a quoted string, section 5.2), clamped
    /// to ``deltaSecondsLimit``; `nil` when it is missing or not only ASCII digits.
    /// - Parameter argument: The directive's argument.
    /// - Returns: The seconds, or `nil`.
    package static func seconds(_ argument: CacheDirective.Argument) -> Int? {
        guard let text = argument.text else { return nil }
        return deltaSeconds(text)
    }

    /// The value of `text` as delta-seconds: one or more ASCII digits, clamped to ``deltaSecondsLimit``; `nil` for
    /// anything else (a sign, a fraction, spaces, letters).
    /// - Parameter text: The text, with nothing around the digits.
    /// - Returns: The seconds, or `nil`.
    package static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        var value = 0
        var count = 0
        for byte in text.utf8 {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), deltaSecondsLimit)
            count += 1
        }
        return count > 0 ? value : nil
    }

    /// The lower-cased field names of a qualified directive's argument (`"A, B"`).
    private static func fieldNames(_ list: String) -> [String] {
        list.split(separator: ",").compactMap { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty ? nil : trimmed.lowercased()
        }
    }
}
