import Foundation
import SimpleNetworking
import Testing

/// Invalidation by unsafe methods (RFC 9111 section 4.4), with the facts of the http-tests suite `invalidation`:
/// the target URI of `https://example.com/app/resource?q=1`, plus same-origin `Location` and `Content-Location`.
@Suite("Cache rules: invalidation")
struct CacheInvalidationTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var id: String
        var method: HTTPMethod
        var status = 200
        var fields: [(String, String)] = []
        var invalidated: [String]

        var testDescription: String { id }
    }

    static let target = "https://example.com/app/resource?q=1"
    static let locations = [("Location", "location_target"), ("Content-Location", "content_location_target")]

    static let rows: [Row] =
        ["POST", "PUT", "DELETE", "M-SEARCH", "PATCH"].flatMap { method in
            [
                Row(id: "invalidate-\(method)", method: HTTPMethod(rawValue: method), invalidated: [target]),
                Row(
                    id: "invalidate-\(method)-failed", method: HTTPMethod(rawValue: method), status: 500,
                    invalidated: []),
                Row(
                    id: "invalidate-\(method)-location", method: HTTPMethod(rawValue: method), fields: locations,
                    invalidated: [
                        target, "https://example.com/app/location_target",
                        "https://example.com/app/content_location_target",
                    ]),
            ]
        }
        + [
            Row(id: "invalidate-GET", method: .get, fields: locations, invalidated: []),
            Row(id: "invalidate-HEAD", method: .head, invalidated: []),
            Row(id: "invalidate-OPTIONS", method: .options, invalidated: []),
            Row(id: "invalidate-TRACE", method: .trace, invalidated: []),
            // Methods are case-sensitive: `post` is an unknown method, so unsafe.
            Row(id: "invalidate-lower-case-method", method: "post", invalidated: [target]),
            Row(id: "invalidate-POST-redirect", method: .post, status: 303, invalidated: [target]),
            Row(id: "invalidate-POST-not-found", method: .post, status: 404, invalidated: []),
            Row(id: "invalidate-POST-informational", method: .post, status: 100, invalidated: []),
            Row(
                id: "invalidate-other-origin", method: .post,
                fields: [
                    ("Location", "https://other.example/x"), ("Content-Location", "http://example.com/app/x"),
                ],
                invalidated: [target]),
            Row(
                id: "invalidate-other-port", method: .post, fields: [("Location", "https://example.com:8443/x")],
                invalidated: [target]),
            Row(
                id: "invalidate-default-port-and-case", method: .put,
                fields: [("Location", "HTTPS://EXAMPLE.com:443/other")],
                invalidated: [target, "https://example.com/other"]),
            Row(
                id: "invalidate-absolute-path-and-fragment", method: .delete,
                fields: [("Location", "/list#top"), ("Content-Location", "?q=1")],
                invalidated: [target, "https://example.com/list"]),
            Row(id: "invalidate-empty-location", method: .post, fields: [("Location", "")], invalidated: [target]),
        ]

    @Test("Invalidated URLs", arguments: rows)
    func invalidated(_ row: Row) throws {
        let url = try #require(URL(string: Self.target + "#fragment"))
        let keys = CacheInvalidation.invalidatedKeys(
            method: row.method, requestURL: url, status: row.status, responseHeaders: CacheScenario.headers(row.fields))
        #expect(keys == row.invalidated)
    }

    @Test(
        "Primary keys",
        arguments: [
            ("https://example.com/a?b=1#c", "https://example.com/a?b=1"),
            ("HTTPS://Example.COM:443/A?B=1", "https://example.com/A?B=1"),
            ("http://example.com:80/", "http://example.com/"),
            ("http://example.com:443/", "http://example.com:443/"),
            ("https://example.com:8443/x", "https://example.com:8443/x"),
            ("https://example.com", "https://example.com"),
            ("https://[::1]:443/x", "https://[::1]/x"),
            ("https://example.com/%7Ea%2fb", "https://example.com/%7Ea%2fb"),
        ])
    func primaryKey(url: String, key: String) throws {
        #expect(CacheInvalidation.primaryKey(for: try #require(URL(string: url))) == key)
    }

    @Test(
        "A key read as spelled is the key of the URL taken apart",
        arguments: [
            "http://127.0.0.1:8080/json", "http://127.0.0.1:80/json", "http://127.0.0.1:080/json",
            "https://example.com:443", "https://example.com:4430/", "https://example.com:/x",
            "https://example.com?q#f", "https://example.com#f?q", "https://example.com/a#b#c",
            "https://user@example.com/", "https://user:pw@example.com/", "https://exa%41mple.com/",
            "https://[::1]:8443/x", "https://[::1]/", "http://xn--bcher-kva.example/a", "https://Example.com/",
            "https://example.com/Path?Q=A", "https://example.com./", "https://example.com/%7E#", "https://1.2.3.4:9/",
            "http://example.com:65535/", "https://example.com/a b", "HTTP://example.com/",
        ])
    func keyAsSpelled(url: String) throws {
        let url = try #require(URL(string: url))
        #expect(CacheInvalidation.primaryKey(for: url) == CacheInvalidation.primaryKeyByComponents(for: url))
    }
}
