import Foundation
import SimpleNetworking

/// The request side: the suite's `cc-request`, `pragma`, `vary`, `vary-parse`, `authorization` and
/// `conditional-etag` / `conditional-lm` (forwarded) cases.
extension CacheConformance {
    /// Fresh for a long while, generated now.
    static let longFresh: Fields = [("Cache-Control", "max-age=100000"), ("Date", .date(0))]

    static let requestDirectiveCases: [Case] = [
        reuse("ccreq-ma0", response: longFresh, request: [("Cache-Control", "max-age=0")], modifiedSince(0)),
        reuse("ccreq-ma-within", response: longFresh, request: [("Cache-Control", "max-age=60")], .fresh),
        reuse(
            "ccreq-magreaterage", response: longFresh + [("Age", "1800")], request: [("Cache-Control", "max-age=600")],
            modifiedSince(0)),
        reuse(
            "ccreq-max-stale", response: [("Cache-Control", "max-age=2")],
            request: [("Cache-Control", "max-stale=1000")], .stale),
        reuse(
            "ccreq-max-stale-exceeded", response: [("Cache-Control", "max-age=1500"), ("Age", "3000")],
            request: [("Cache-Control", "max-stale=1000")], .fetched),
        reuse(
            "ccreq-max-stale-must-revalidate", response: [("Cache-Control", "max-age=1, must-revalidate")],
            request: [("Cache-Control", "max-stale")], .fetched),
        reuse(
            "ccreq-min-fresh", response: [("Cache-Control", "max-age=1500")],
            request: [("Cache-Control", "min-fresh=2000")], .fetched),
        reuse(
            "ccreq-min-fresh-satisfied", response: [("Cache-Control", "max-age=1500")],
            request: [("Cache-Control", "min-fresh=1000")], .fresh),
        reuse(
            "ccreq-no-cache", response: [("Cache-Control", "max-age=3600")], request: [("Cache-Control", "no-cache")],
            .fetched),
        reuse(
            "ccreq-no-cache-etag", response: [("Cache-Control", "max-age=3600"), ("ETag", "\"aiqygowemucksai\"")],
            request: [("Cache-Control", "no-cache")], noneMatch("\"aiqygowemucksai\"")),
        reuse(
            "ccreq-no-cache-lm",
            response: [("Cache-Control", "max-age=3600"), ("Last-Modified", .date(-10000)), ("Date", .date(0))],
            request: [("Cache-Control", "no-cache")], modifiedSince(-10000)),
        // A request's no-store keeps its own response out of storage, but may be answered from storage (RFC 9111
        // section 5.2.1.5).
        reuse("ccreq-no-store", response: longFresh, request: [("Cache-Control", "no-store")], .fresh),
        reuse(
            "ccreq-no-store-first-request", firstRequest: [("Cache-Control", "no-store")], response: longFresh,
            .fetched),
        Case(
            "ccreq-oic",
            steps: [
                Step(
                    fields: [("Cache-Control", "only-if-cached")], sending: .notSent,
                    answer: .response(.cache, status: 504, bodyOfStep: nil))
            ]),
        reuse("ccreq-oic-fresh", response: longFresh, request: [("Cache-Control", "only-if-cached")], .fresh),
        reuse(
            "ccreq-oic-stale", response: [("Cache-Control", "max-age=1"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "only-if-cached")], .gatewayTimeout),
        reuse(
            "ccreq-oic-max-stale", response: [("Cache-Control", "max-age=1"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "only-if-cached, max-stale")], .stale),
        reuse(
            "ccreq-oic-must-revalidate", response: [("Cache-Control", "max-age=1, must-revalidate")],
            request: [("Cache-Control", "only-if-cached, max-stale")], .gatewayTimeout),
        // Requests the cache does not answer: a range, and the application's own preconditions, sent as they are.
        reuse("request-range", response: longFresh, request: [("Range", "bytes=0-1")], .fetched),
        Case(
            "conditional-etag-strong-respond",
            steps: [
                Step(
                    response: ServerResponse(fields: longFresh + [("ETag", "\"abcdef\"")]), sending: .sent,
                    answer: .response(.network, status: 200, bodyOfStep: 1)),
                Step(
                    wait: 3, fields: [("If-None-Match", "\"abcdef\"")],
                    response: ServerResponse(status: 304, fields: [("ETag", "\"abcdef\"")]),
                    sending: .sent(conditions: [("If-None-Match", "\"abcdef\"")]),
                    answer: .response(.network, status: 304, bodyOfStep: 2)),
            ]),
        // Pragma: no-cache in a request without Cache-Control is no-cache (RFC 9111 section 5.4).
        reuse("pragma-request-no-cache", response: longFresh, request: [("Pragma", "no-cache")], modifiedSince(0)),
        reuse(
            "pragma-request-no-cache-with-cache-control", response: longFresh,
            request: [("Pragma", "no-cache"), ("Cache-Control", "max-stale")], .fresh),
        reuse("pragma-request-extension", response: longFresh, request: [("Pragma", "unrecognised-extension")], .fresh),
    ]

    /// A response that varies, fresh for a while.
    static let varying: Fields = [
        ("Cache-Control", "max-age=5000"), ("Last-Modified", .date(-3000)), ("Date", .date(0)),
    ]

    /// `Vary` (RFC 9111 section 4.1): a request that does not match the stored variant goes out unconditionally.
    static let varyCases: [Case] =
        [
            ("vary-match", [("Foo", "1")], [("Foo", "1")], Reuse.fresh),
            ("vary-no-match", [("Foo", "1")], [("Foo", "2")], .fetched),
            ("vary-omit-stored", [], [("Foo", "1")], .fetched),
            ("vary-omit", [("Foo", "1")], [], .fetched),
            ("vary-cache-key", [("Foo", "1"), ("Other", "2")], [("Foo", "1"), ("Other", "3")], .fresh),
            ("vary-normalise-space", [("Foo", "1,2")], [("Foo", " 1, 2 ")], .fresh),
            ("vary-case-of-value", [("Foo", "abc")], [("Foo", "ABC")], .fetched),
        ].map { (id: String, first: Fields, second: Fields, reuse: Reuse) in
            Self.reuse(id, firstRequest: first, response: varying + [("Vary", "Foo")], request: second, reuse)
        }
        + [
            ("vary-2-match", [("Foo", "1"), ("Bar", "abc")], [("Foo", "1"), ("Bar", "abc")], Reuse.fresh),
            ("vary-2-no-match", [("Foo", "1"), ("Bar", "abc")], [("Foo", "2"), ("Bar", "abc")], .fetched),
            ("vary-2-match-omit", [("Foo", "1"), ("Bar", "abc")], [], .fetched),
        ].map { (id: String, first: Fields, second: Fields, reuse: Reuse) in
            Self.reuse(id, firstRequest: first, response: varying + [("Vary", "Foo, Bar")], request: second, reuse)
        }
        + [
            reuse(
                "vary-name-case", firstRequest: [("foo", "1")], response: varying + [("Vary", "FOO")],
                request: [("Foo", "1")], .fresh),
            reuse(
                "vary-two-lines", firstRequest: [("Foo", "1"), ("Bar", "2")],
                response: varying + [("Vary", "Foo"), ("Vary", "Bar")], request: [("Foo", "1"), ("Bar", "3")], .fetched),
            reuse(
                "vary-star", firstRequest: [("Foo", "1")], response: varying + [("Vary", "*")],
                request: [("Foo", "1")], .fetched),
            reuse(
                "vary-syntax-foo-star", firstRequest: [("Foo", "1")], response: varying + [("Vary", "Foo, *")],
                request: [("Foo", "1")], .fetched),
            reuse(
                "vary-syntax-empty-star-lines", firstRequest: [("Foo", "1")],
                response: varying + [("Vary", ""), ("Vary", "*")], request: [("Foo", "1")], .fetched),
            // vary-invalidate, as this cache does it: two variants of one URL are kept, each for its own requests.
            Case(
                "vary-two-variants-kept",
                steps: [
                    Step(
                        fields: [("Foo", "1")], response: ServerResponse(fields: varying + [("Vary", "Foo")]),
                        sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                    Step(
                        fields: [("Foo", "2")], response: ServerResponse(fields: varying + [("Vary", "Foo")]),
                        sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 2)),
                    Step(
                        wait: 3, fields: [("Foo", "1")], sending: .notSent,
                        answer: .response(.cache, status: 200, bodyOfStep: 1)),
                    Step(
                        fields: [("Foo", "2")], sending: .notSent, answer: .response(.cache, status: 200, bodyOfStep: 2)
                    ),
                ]),
        ]

    /// Requests with `Authorization`: this private cache stores their responses, keyed by the credentials, so only a
    /// request with the same credentials reuses one (the suite's cases are for shared caches).
    static let authorizationCases: [Case] = [
        reuse("other-authorization", firstRequest: [("Authorization", "FOO")], response: longFresh, .fetched),
        reuse(
            "other-authorization-public", firstRequest: [("Authorization", "FOO")],
            response: [("Cache-Control", "max-age=3600, public"), ("Date", .date(0))], .fetched),
        reuse(
            "authorization-same-credentials", firstRequest: [("Authorization", "FOO")], response: longFresh,
            request: [("authorization", "FOO")], .fresh),
        reuse(
            "authorization-other-credentials", firstRequest: [("Authorization", "FOO")], response: longFresh,
            request: [("Authorization", "BAR")], .fetched),
        reuse("authorization-added-later", response: longFresh, request: [("Authorization", "FOO")], .fetched),
    ]
}
