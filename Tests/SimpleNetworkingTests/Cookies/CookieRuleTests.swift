import Foundation
import SimpleNetworking
import Testing

/// The matching rules of RFC 6265 and the public suffix list, with facts from Go's `net/http/cookiejar` and
/// OkHttp's tests.
@Suite("Cookie rules")
struct CookieRuleTests {
    /// Go's domain-and-type table (host, Domain attribute, expected domain and host-only flag, or `nil` for
    /// refused), with the real public suffix list. A `Domain` naming an IP host is refused, as in Go.
    @Test(
        "Which Domain attributes make which cookies",
        arguments: [
            ("www.example.com", nil, "www.example.com", true),
            ("127.0.0.1", nil, "127.0.0.1", true),
            ("2001:4860:0:2001::68", nil, "2001:4860:0:2001::68", true),
            ("www.example.com", "example.com", "example.com", false),
            ("www.example.com", ".example.com", "example.com", false),
            ("www.example.com", "www.example.com", "www.example.com", false),
            ("www.example.com", ".www.example.com", "www.example.com", false),
            ("foo.sso.example.com", "sso.example.com", "sso.example.com", false),
            ("bar.co.uk", "bar.co.uk", "bar.co.uk", false),
            ("foo.bar.co.uk", ".bar.co.uk", "bar.co.uk", false),
            ("127.0.0.1", "127.0.0.1", nil, false),
            ("2001:4860:0:2001::68", "2001:4860:0:2001::68", nil, false),
            ("www.example.com", ".", nil, false),
            ("www.example.com", "..", nil, false),
            ("www.example.com", "other.com", nil, false),
            ("www.example.com", "com", nil, false),
            ("www.example.com", ".com", nil, false),
            ("foo.bar.co.uk", ".co.uk", nil, false),
            ("127.www.0.0.1", "127.0.0.1", nil, false),
            ("com", nil, "com", true),
            ("com", "com", "com", true),
            ("com", ".com", "com", true),
            ("co.uk", nil, "co.uk", true),
            ("co.uk", "co.uk", "co.uk", true),
            ("co.uk", ".co.uk", "co.uk", true),
            ("foo.github.io", "github.io", nil, false),
            ("xn--ue5a.xn--ue5a.xn--8ltr62k.jp", "xn--ue5a.xn--8ltr62k.jp", "xn--ue5a.xn--8ltr62k.jp", false),
            ("xn--ue5a.xn--ue5a.xn--8ltr62k.jp", "xn--8ltr62k.jp", nil, false),
        ] as [(String, String?, String?, Bool)])
    func domainAndType(host: String, attribute: String?, domain: String?, isHostOnly: Bool) throws {
        let field = "a=b" + (attribute.map { "; Domain=" + $0 } ?? "")
        let setCookie = try #require(SetCookieParser.parse(field))
        let context = CookieJar.ReceivingContext(host: host, isSecure: false, defaultPath: "/", now: Date())
        let result = context.domain(for: setCookie.domain)
        #expect(result?.domain == domain)
        if let result { #expect(result.isHostOnly == isHostOnly) }
    }

    @Test(
        "Public suffixes, with wildcard and exception rules",
        arguments: [
            ("com", "com"), ("example.com", "com"), ("www.example.co.uk", "co.uk"), ("co.uk", "co.uk"),
            ("user.github.io", "github.io"), ("unlisted", "unlisted"), ("www.host.test", "test"),
            ("a.b.ck", "b.ck"), ("www.ck", "ck"), ("a.www.ck", "ck"), ("city.kawasaki.jp", "kawasaki.jp"),
            ("x.y.kawasaki.jp", "y.kawasaki.jp"), ("xn--ue5a.xn--8ltr62k.jp", "xn--8ltr62k.jp"),
        ])
    func publicSuffix(domain: String, suffix: String) {
        #expect(PublicSuffixList.publicSuffix(of: domain) == suffix)
    }

    @Test(
        "Registrable domains, the buckets the limits count in",
        arguments: [
            ("foo.www.example.com", "example.com"), ("www.example.com", "example.com"), ("example.com", "example.com"),
            ("com", "com"), ("foo.www.bbc.co.uk", "bbc.co.uk"), ("bbc.co.uk", "bbc.co.uk"), ("co.uk", "co.uk"),
        ])
    func registrableDomain(host: String, domain: String) {
        #expect(PublicSuffixList.registrableDomain(of: host) == domain)
    }

    @Test(
        "Default path of a request path",
        arguments: [
            ("/", "/"), ("/abc", "/"), ("/abc/", "/abc"), ("/abc/xyz", "/abc"), ("/abc/xyz/", "/abc/xyz"),
            ("/a/b/c.html", "/a/b"), ("", "/"), ("strange", "/"), ("//", "/"), ("/a//b", "/a/"), ("/a/./b", "/a/."),
            ("/a/../b", "/a/.."),
        ])
    func defaultPath(path: String, expected: String) {
        #expect(CookieRules.defaultPath(path) == expected)
    }

    @Test(
        "IP addresses take host-only cookies only",
        arguments: [
            ("127.0.0.1", true), ("1.2.3.4", true), ("2001:4860:0:2001::68", true), ("example.com", false),
            ("www.foo.bar.net", false), ("123.foo.bar.net", false),
        ])
    func ipAddress(host: String, isIP: Bool) {
        #expect(CookieRules.isIPAddress(host) == isIP)
    }

    @Test(
        "Path-match",
        arguments: [
            ("/", "/", true), ("/a", "/", true), ("/a", "/a", true), ("/a/b", "/a", true), ("/a/", "/a", true),
            ("/ab", "/a", false), ("/a", "/a/", false), ("/a/b", "/a/", true), ("/", "/a", false),
        ])
    func pathMatch(requestPath: String, cookiePath: String, matches: Bool) {
        #expect(CookieRules.pathMatches(requestPath: requestPath, cookiePath: cookiePath) == matches)
    }

    /// RFC 6265bis prefixes: `__Secure-` needs Secure from https; `__Host-` also no Domain and Path `/`. Matched
    /// without regard to case.
    @Test(
        "Cookie name prefixes",
        arguments: [
            ("https://a.example/", "__Secure-x=1; Secure", true),
            ("https://a.example/", "__Secure-x=1", false),
            ("http://a.example/", "__Secure-x=1; Secure", false),
            ("https://a.example/", "__secure-x=1", false),
            ("https://a.example/", "__Host-x=1; Secure; Path=/", true),
            ("https://a.example/dir/page", "__Host-x=1; Secure", false),
            ("https://a.example/", "__Host-x=1; Secure; Path=/; Domain=a.example", false),
            ("https://a.example/", "__Host-x=1; Path=/", false),
            ("http://a.example/", "__Host-x=1; Secure; Path=/", false),
            ("https://a.example/", "__HOST-x=1; Path=/", false),
            ("https://a.example/", "__Hostx=1", true),
        ])
    func prefixes(url: String, field: String, stored: Bool) throws {
        let jar = CookieJar()
        jar.receive(setCookie: [field], from: try #require(URL(string: url)))
        #expect(jar.cookies.count == (stored ? 1 : 0))
    }
}
