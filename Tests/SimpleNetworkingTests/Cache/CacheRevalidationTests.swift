import Foundation
import SimpleNetworking
import Testing

/// Storing header fields and merging a `304` into a stored response (RFC 9111 sections 3.1, 3.2 and 4.3.4), with
/// the facts of the http-tests suites `headers` and `update304`.
@Suite("Cache rules: stored fields and 304 merging")
struct CacheRevalidationTests {
    /// headers-store-*: which received fields a stored response keeps (section 3.1).
    @Test(
        "Fields kept in storage",
        arguments: [
            ("Test-Header", true), ("X-Test-Header", true), ("Content-Foo", true), ("X-Content-Foo", true),
            ("Cache-Control", true), ("Content-Encoding", true), ("Content-Length", true), ("Content-Location", true),
            ("Content-MD5", true), ("Content-Range", true), ("Content-Security-Policy", true), ("Content-Type", true),
            ("Clear-Site-Data", true), ("ETag", true), ("Expires", true), ("Public-Key-Pins", true),
            ("Set-Cookie", true), ("Set-Cookie2", true), ("X-Frame-Options", true), ("X-XSS-Protection", true),
            ("Age", true), ("Connection", false), ("Keep-Alive", false), ("Proxy-Authenticate", false),
            ("Proxy-Authentication-Info", false), ("Proxy-Authorization", false), ("Proxy-Connection", false),
            ("TE", false), ("Transfer-Encoding", false), ("Upgrade", false), ("trailer", false),
        ])
    func storedField(name: String, kept: Bool) {
        let received: HTTPHeaders = [name: "value", "Cache-Control": "max-age=3600", "Date": httpDate(0)]
        #expect(CachedResponseHead.storedFields(of: received).contains(name) == kept)
    }

    @Test("headers-omit-headers-listed-in-Connection")
    func connectionOptions() {
        let received = CacheScenario.headers([
            ("Cache-Control", "max-age=100000"), ("Date", httpDate(0)), ("Connection", "a, B"), ("Connection", " c "),
            ("a", "1"), ("b", "2"), ("c", "3"), ("d", "4"),
        ])
        let stored = CachedResponseHead.storedFields(of: received)
        #expect(stored.fields.map(\.name) == ["Cache-Control", "Date", "d"])
    }

    /// One `304` merged into a stored response.
    struct NotModifiedCase: Sendable, CustomTestStringConvertible {
        var id: String
        var stored: [(String, String)]
        var notModified: [(String, String)]
        /// The values the merged response has for some names (every line, in order); empty means none.
        var expected: [(String, [String])] = []
        /// `false` when the `304` does not apply to the stored response.
        var applies = true

        var testDescription: String { id }
    }

    static let tag = ("ETag", "\"aqgwmcsiyoeukaq\"")

    /// update304: a field the `304` carries replaces the stored one, except those the stored content depends on.
    static let updates: [NotModifiedCase] =
        [
            ("Test-Header", "aaaaaaaaaaaaaaa", "abcdefghijklmno"),
            ("X-Test-Header", "adgjmpsvybehknq", "aeimquycgkoswae"),
            ("Content-Foo", "awsokgcyuqmieaw", "axurolifczwtqnk"),
            ("X-Content-Foo", "azyxwvutsrqponm", "aaaaaaaaaaaaaaa"),
            ("Cache-Control", "max-age=1", "max-age=3600"), ("Content-Location", "/foo", "/bar"),
            ("Content-MD5", "rL0Y20zC+Fzt72VPzMSk2A==", "N7UdGUp1E+RbVvZSTy1R8g=="),
            ("Content-Security-Policy", "default-src 'self'", "default-src 'self' cdn.example.com"),
            ("Content-Type", "text/plain", "text/plain;charset=utf-8"), ("Clear-Site-Data", "cache", "cookies"),
            ("Expires", "Fri, 01 Jan 2038 01:01:01 GMT", "Mon, 11 Jan 2038 11:11:11 GMT"),
            ("Public-Key-Pins", "auoicwqkeysmgau", "avqlgbwrmhcxsni"), ("Set-Cookie", "a=b", "a=c"),
            ("Set-Cookie2", "a=b", "a=c"), ("X-Frame-Options", "deny", "sameorigin"),
            ("X-XSS-Protection", "1", "1; mode=block"),
        ].map { name, old, new in
            let lifetime = name == "Cache-Control" ? [] : [("Cache-Control", "max-age=2")]
            return NotModifiedCase(
                id: "304-etag-update-response-\(name)", stored: [("Date", httpDate(0)), (name, old), tag] + lifetime,
                notModified: [("Date", httpDate(0)), (name, new), tag] + lifetime, expected: [(name, [new])])
        }
        + [
            // Content-Length must not change; Content-Encoding (the stored content's coding) and Content-Range
            // (processed on receipt) are kept too, as section 3.2 allows. The suite checks that Content-Encoding
            // changes; here it cannot.
            ("Content-Length", "36", "10"), ("Content-Encoding", "arizqhypgxofwne", "askcumewogyqias"),
            ("Content-Range", "apetixmbqfujync", "aqgwmcsiyoeukaq"),
        ].map { name, old, new in
            NotModifiedCase(
                id: "304-etag-update-response-\(name)",
                stored: [("Date", httpDate(0)), (name, old), ("Cache-Control", "max-age=2"), tag],
                notModified: [("Date", httpDate(0)), (name, new), ("Cache-Control", "max-age=2"), tag],
                expected: [(name, [old])])
        }
        + [
            NotModifiedCase(
                id: "304-lm-use-stored-Test-Header",
                stored: [
                    ("Cache-Control", "max-age=2"), ("Last-Modified", "Wed, 01 Jan 2020 00:00:00 GMT"),
                    ("Date", httpDate(0)), ("Test-Header", "aaaaaaaaaaaaaaa"),
                ],
                notModified: [("Last-Modified", "Wed, 01 Jan 2020 00:00:00 GMT"), ("Date", httpDate(0))],
                expected: [("Test-Header", ["aaaaaaaaaaaaaaa"]), ("Cache-Control", ["max-age=2"])]),
            // A strong tag other than the stored one selects another representation (section 4.3.4): the suite's
            // check expects the tag updated; it cannot be used here.
            NotModifiedCase(
                id: "304-etag-update-response-ETag", stored: [("Date", httpDate(0)), ("ETag", "\"abcdef\"")],
                notModified: [("Date", httpDate(0)), ("ETag", "\"ghijkl\"")], applies: false),
            NotModifiedCase(
                id: "304-weak-tag-matches-strong", stored: [("ETag", "\"v1\""), ("A", "1")],
                notModified: [("ETag", "W/\"v1\""), ("A", "2")], expected: [("A", ["2"])]),
            NotModifiedCase(
                id: "304-strong-tag-against-weak", stored: [("ETag", "W/\"v1\"")], notModified: [("ETag", "\"v1\"")],
                applies: false),
            NotModifiedCase(
                id: "304-tag-but-none-stored", stored: [("Last-Modified", httpDate(-60))],
                notModified: [("ETag", "\"v1\"")], applies: false),
            NotModifiedCase(
                id: "304-other-last-modified", stored: [("Last-Modified", httpDate(-60))],
                notModified: [("Last-Modified", httpDate(-30))], applies: false),
            // No validator in the 304: it answers the one response validated (see CacheRevalidation).
            NotModifiedCase(
                id: "304-without-validator", stored: [("ETag", "\"v1\""), ("A", "1")], notModified: [("A", "2")],
                expected: [("A", ["2"]), ("ETag", ["\"v1\""])]),
            // Fields never stored are not merged either; nor those the 304's Connection lists.
            NotModifiedCase(
                id: "304-connection-fields", stored: [tag, ("A", "1")],
                notModified: [
                    tag, ("Connection", "a, keep-alive"), ("Keep-Alive", "timeout=5"), ("A", "2"),
                    ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"), ("TE", "trailers"),
                    ("Proxy-Authenticate", "Basic"), ("B", "3"),
                ],
                expected: [
                    ("A", ["1"]), ("B", ["3"]), ("Connection", []), ("Keep-Alive", []), ("Transfer-Encoding", []),
                    ("Upgrade", []), ("TE", []), ("Proxy-Authenticate", []),
                ]),
            NotModifiedCase(
                id: "304-repeated-field-replaces-all", stored: [tag, ("Set-Cookie", "a=1"), ("Set-Cookie", "b=1")],
                notModified: [tag, ("Set-Cookie", "c=2"), ("set-cookie", "d=2")],
                expected: [("Set-Cookie", ["c=2", "d=2"])]),
            // Age: the 304's, never the stored one's (the times become those of the validation).
            NotModifiedCase(
                id: "304-age-dropped", stored: [tag, ("Age", "100"), ("Date", httpDate(0))],
                notModified: [tag, ("Date", httpDate(3))], expected: [("Age", [])]),
            NotModifiedCase(
                id: "304-age-taken", stored: [tag, ("Age", "100"), ("Date", httpDate(0))],
                notModified: [tag, ("Age", "30"), ("Date", httpDate(3))], expected: [("Age", ["30"])]),
            // A 304 without Date: the merged response is dated when the 304 arrived (3 s after the base).
            NotModifiedCase(
                id: "304-without-date", stored: [tag, ("Date", httpDate(-600))], notModified: [tag],
                expected: [("Date", [httpDate(3)])]),
        ]

    @Test("Merging a 304", arguments: updates)
    func merge(_ row: NotModifiedCase) throws {
        let stored = try #require(
            CachedResponseHead(
                status: 200, responseHeaders: CacheScenario.headers(row.stored), requestHeaders: [:],
                requestTime: CacheScenario.base, responseTime: CacheScenario.base))
        let outcome = CacheRevalidation.merge(
            notModifiedHeaders: CacheScenario.headers(row.notModified), requestHeaders: [:],
            requestTime: CacheScenario.base.addingTimeInterval(2),
            responseTime: CacheScenario.base.addingTimeInterval(3),
            into: stored)
        guard case .updated(let merged, _) = outcome else {
            #expect(!row.applies, "the 304 should apply")
            return
        }
        #expect(row.applies, "the 304 should not apply")
        for (name, values) in row.expected {
            #expect(merged.headers.values(for: name) == values, "\(name)")
        }
        #expect(merged.requestTime == CacheScenario.base.addingTimeInterval(2))
        #expect(merged.responseTime == CacheScenario.base.addingTimeInterval(3))
        #expect(merged.status == 200)
    }

    /// The whole field list a merge makes, in order: the stored fields the `304` leaves, then each name it updates
    /// (in the order the `304` first names it, spelled as there first) with all of its values, then its `Age`; a
    /// missing `Date` is set in place.
    /// A merge's rows: the stored fields, the `304`'s, and the merged list.
    typealias FieldListCase = (stored: [(String, String)], notModified: [(String, String)], merged: [(String, String)])

    static let fieldLists: [FieldListCase] = [
        (
            stored: [
                ("Date", httpDate(0)), ("ETag", #""a""#), ("Cache-Control", "max-age=1"), ("X-A", "1"), ("Age", "5"),
            ],
            notModified: [
                ("Date", httpDate(3)), ("ETag", #""a""#), ("x-a", "2"), ("X-A", "3"), ("Cache-Control", "max-age=2"),
            ],
            merged: [
                ("Date", httpDate(3)), ("ETag", #""a""#), ("x-a", "2"), ("x-a", "3"), ("Cache-Control", "max-age=2"),
            ]
        ),
        (
            stored: [
                ("Content-Length", "10"), ("Date", httpDate(0)), ("X-Keep", "k"), ("Set-Cookie", "a"),
                ("Set-Cookie", "b"),
            ],
            notModified: [
                ("Connection", "x-opt"), ("X-Opt", "o"), ("Content-Length", "0"), ("Set-Cookie", "c"), ("Age", "7"),
            ],
            merged: [
                ("Content-Length", "10"), ("Date", httpDate(3)), ("X-Keep", "k"), ("Set-Cookie", "c"), ("Age", "7"),
            ]
        ),
        (
            stored: [("date", httpDate(0)), ("X-A", "1"), ("Date", httpDate(1)), ("Age", "5")],
            notModified: [("ETag", #""a""#)],
            merged: [("Date", httpDate(3)), ("X-A", "1"), ("ETag", #""a""#)]
        ),
        (
            stored: [("X-A", "1")],
            notModified: [("x-b", "2"), ("Age", "1"), ("Age", "2")],
            merged: [("X-A", "1"), ("x-b", "2"), ("Age", "1"), ("Age", "2"), ("Date", httpDate(3))]
        ),
    ]

    @Test("The merged field list, in order", arguments: 0..<fieldLists.count)
    func mergedFieldList(row: Int) {
        let (stored, notModified, merged) = Self.fieldLists[row]
        let updated = CacheRevalidation.updatedFields(
            stored: CacheScenario.headers(stored), notModified: CacheScenario.headers(notModified),
            receivedAt: CacheScenario.base.addingTimeInterval(3))
        #expect(updated.fields.map(\.name) == merged.map(\.0))
        #expect(updated.fields.map(\.value) == merged.map(\.1))
    }

    /// 304-etag-update-response-Cache-Control: the stale response, freshened by the 304's `max-age`, is then fresh.
    @Test("A 304 freshens the stored response")
    func freshening() throws {
        let stored = try #require(
            CachedResponseHead(
                status: 200, responseHeaders: ["Cache-Control": "max-age=1", "ETag": "\"v1\"", "Date": httpDate(0)],
                requestHeaders: [:], requestTime: CacheScenario.base, responseTime: CacheScenario.base))
        let later = CacheScenario.base.addingTimeInterval(10)
        #expect(
            CacheLookup.decide(method: .get, requestHeaders: [:], stored: stored, now: later)
                == .revalidate(CacheValidation(ifNoneMatch: "\"v1\"")))
        let outcome = CacheRevalidation.merge(
            notModifiedHeaders: ["Cache-Control": "max-age=3600", "ETag": "\"v1\"", "Date": httpDate(10)],
            requestHeaders: [:], requestTime: later, responseTime: later, into: stored)
        guard case .updated(let merged, let storable) = outcome else {
            Issue.record("the 304 should apply")
            return
        }
        #expect(storable)
        #expect(
            CacheLookup.decide(method: .get, requestHeaders: [:], stored: merged, now: later.addingTimeInterval(5))
                == .serveFresh(age: 5))
    }

    @Test("A 304 that forbids storing is served but not stored again")
    func notStorableAfterMerge() throws {
        let stored = try #require(
            CachedResponseHead(
                status: 200, responseHeaders: ["Cache-Control": "max-age=1", "ETag": "\"v1\""], requestHeaders: [:],
                requestTime: CacheScenario.base, responseTime: CacheScenario.base))
        for fields: HTTPHeaders in [["Cache-Control": "no-store", "ETag": "\"v1\""], ["Vary": "*", "ETag": "\"v1\""]] {
            let outcome = CacheRevalidation.merge(
                notModifiedHeaders: fields, requestHeaders: [:], requestTime: CacheScenario.base,
                responseTime: CacheScenario.base, into: stored)
            guard case .updated(_, let storable) = outcome else {
                Issue.record("the 304 should apply")
                continue
            }
            #expect(!storable)
        }
    }

    @Test("A 304 without Vary keeps the stored variant for the request it matches, and makes the variant of another")
    func varyKeptBy304() throws {
        let stored = try #require(
            CachedResponseHead(
                status: 200, responseHeaders: ["Cache-Control": "max-age=1", "ETag": "\"v1\"", "Vary": "Accept"],
                requestHeaders: ["Accept": "a/b"], requestTime: CacheScenario.base, responseTime: CacheScenario.base))
        for (accept, same) in [("a/b", true), ("c/d", false)] {
            let outcome = CacheRevalidation.merge(
                notModifiedHeaders: ["ETag": "\"v1\""], requestHeaders: ["Accept": accept],
                requestTime: CacheScenario.base, responseTime: CacheScenario.base, into: stored)
            guard case .updated(let merged, true) = outcome else {
                Issue.record("the 304 should apply and be storable")
                continue
            }
            #expect(merged.variant.fieldNames == ["accept"])
            #expect((merged.variant == stored.variant) == same)
            #expect(merged.variant.matches(["Accept": accept]))
        }
    }

    @Test("A 304 that changes Vary records the new variant")
    func varyChangedBy304() throws {
        let stored = try #require(
            CachedResponseHead(
                status: 200, responseHeaders: ["Cache-Control": "max-age=1", "ETag": "\"v1\""],
                requestHeaders: ["Accept": "a/b"], requestTime: CacheScenario.base, responseTime: CacheScenario.base))
        let outcome = CacheRevalidation.merge(
            notModifiedHeaders: ["ETag": "\"v1\"", "Vary": "Accept"], requestHeaders: ["Accept": "a/b"],
            requestTime: CacheScenario.base, responseTime: CacheScenario.base, into: stored)
        guard case .updated(let merged, true) = outcome else {
            Issue.record("the 304 should apply and be storable")
            return
        }
        #expect(merged.variant.fieldNames == ["accept"])
        #expect(merged.variant.matches(["Accept": "a/b"]))
        #expect(!merged.variant.matches(["Accept": "c/d"]))
    }
}
