import Foundation
import SimpleNetworking
import Testing

/// A time that moves only when a test moves it, for a jar's `now`.
final class ManualTime: Sendable {
    private let time: Locked<Date>

    init(_ start: Date) {
        time = Locked(start)
    }

    var now: @Sendable () -> Date { { [time] in time.current } }

    func advance(_ seconds: TimeInterval) {
        time.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// One step of a jar table, as Go's `net/http/cookiejar` tests describe it: `Set-Cookie` fields from one URL, the
/// whole content of the jar afterwards (sorted `name=value`), and what a request to each URL would carry.
struct JarStep: Sendable, CustomTestStringConvertible {
    var name: String
    var from: String
    var setCookies: [String]
    var content: String
    var queries: [(to: String, want: String)]

    var testDescription: String { name }

    init(_ name: String, _ from: String, _ setCookies: [String], _ content: String, _ queries: [(String, String)]) {
        self.name = name
        self.from = from
        self.setCookies = setCookies
        self.content = content
        self.queries = queries.map { (to: $0.0, want: $0.1) }
    }

    /// Runs the step as Go's tables do: the fields arrive at the current time, the content is read 1.001 s later,
    /// and each query 1.001 s after the one before.
    func run(on jar: CookieJar, time: ManualTime, sourceLocation: SourceLocation = #_sourceLocation) throws {
        jar.receive(setCookie: setCookies, from: try #require(URL(string: from)))
        time.advance(1.001)
        let stored = jar.cookies.map(\.headerPair).sorted().joined(separator: " ")
        #expect(stored == content, "\(name): content", sourceLocation: sourceLocation)
        for query in queries {
            time.advance(1.001)
            let sent = jar.cookies(for: try #require(URL(string: query.to))).map(\.headerPair).joined(separator: " ")
            #expect(sent == query.want, "\(name): to \(query.to)", sourceLocation: sourceLocation)
        }
    }
}

/// The reference time of Go's tables: 2013-01-01 12:00:00 UTC.
let jarTableStart = Date(timeIntervalSince1970: 1_357_041_600)

/// `expires=` `seconds` from ``jarTableStart``, in the format of RFC 1123.
func expiresIn(_ seconds: TimeInterval) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return "expires=" + formatter.string(from: jarTableStart.addingTimeInterval(seconds))
}

func makeTableJar() -> (CookieJar, ManualTime) {
    let time = ManualTime(jarTableStart)
    return (CookieJar(now: time.now), time)
}

/// The facts of Go's `net/http/cookiejar` tables (basics, update and delete, the Chromium-derived tables and the
/// domain-handling table), with the real public suffix list where Go used a two-rule one. Where this jar follows
/// RFC 6265bis and browsers rather than Go, the step says so: `Secure` cookies come only from `https`, and an
/// `http` response cannot replace a `Secure` cookie.
@Suite("Cookie jar tables")
struct CookieJarTableTests {
    static let basicSteps: [JarStep] = [
        JarStep(
            "Retrieval of a plain host cookie", "http://www.host.test/", ["A=a"], "A=a",
            [
                ("http://www.host.test", "A=a"), ("http://www.host.test/", "A=a"),
                ("http://www.host.test/some/path", "A=a"), ("https://www.host.test", "A=a"),
                ("https://www.host.test/", "A=a"), ("https://www.host.test/some/path", "A=a"),
                ("ftp://www.host.test", ""), ("ftp://www.host.test/", ""), ("ftp://www.host.test/some/path", ""),
                ("http://www.other.org", ""), ("http://sibling.host.test", ""), ("http://deep.www.host.test", ""),
            ]),
        // Go stores a Secure cookie from http; here it comes from https.
        JarStep(
            "Secure cookies are not returned to http", "https://www.host.test/", ["A=a; secure"], "A=a",
            [
                ("http://www.host.test", ""), ("http://www.host.test/", ""), ("http://www.host.test/some/path", ""),
                ("https://www.host.test", "A=a"), ("https://www.host.test/", "A=a"),
                ("https://www.host.test/some/path", "A=a"),
            ]),
        JarStep("A Secure cookie from http is refused", "http://www.host.test/", ["A=a; secure"], "", []),
        JarStep(
            "Explicit path", "http://www.host.test/", ["A=a; path=/some/path"], "A=a",
            [
                ("http://www.host.test", ""), ("http://www.host.test/", ""), ("http://www.host.test/some", ""),
                ("http://www.host.test/some/", ""), ("http://www.host.test/some/path", "A=a"),
                ("http://www.host.test/some/paths", ""), ("http://www.host.test/some/path/foo", "A=a"),
                ("http://www.host.test/some/path/foo/", "A=a"),
            ]),
        JarStep(
            "Implicit path, the URL path a directory", "http://www.host.test/some/path/", ["A=a"], "A=a",
            [
                ("http://www.host.test", ""), ("http://www.host.test/", ""), ("http://www.host.test/some", ""),
                ("http://www.host.test/some/", ""), ("http://www.host.test/some/path", "A=a"),
                ("http://www.host.test/some/paths", ""), ("http://www.host.test/some/path/foo", "A=a"),
                ("http://www.host.test/some/path/foo/", "A=a"),
            ]),
        JarStep(
            "Implicit path, the URL path a file", "http://www.host.test/some/path/index.html", ["A=a"], "A=a",
            [
                ("http://www.host.test", ""), ("http://www.host.test/", ""), ("http://www.host.test/some", ""),
                ("http://www.host.test/some/", ""), ("http://www.host.test/some/path", "A=a"),
                ("http://www.host.test/some/paths", ""), ("http://www.host.test/some/path/foo", "A=a"),
                ("http://www.host.test/some/path/foo/", "A=a"),
            ]),
        JarStep(
            "Implicit path, no path in the URL", "http://www.host.test", ["A=a"], "A=a",
            [
                ("http://www.host.test", "A=a"), ("http://www.host.test/", "A=a"),
                ("http://www.host.test/some/path", "A=a"),
            ]),
        JarStep(
            "Longer paths first", "http://www.host.test/",
            ["A=a; path=/foo/bar", "B=b; path=/foo/bar/baz/qux", "C=c; path=/foo/bar/baz", "D=d; path=/foo"],
            "A=a B=b C=c D=d",
            [
                ("http://www.host.test/foo/bar/baz/qux", "B=b C=c A=a D=d"),
                ("http://www.host.test/foo/bar/baz/", "C=c A=a D=d"), ("http://www.host.test/foo/bar", "A=a D=d"),
            ]),
        JarStep(
            "Older first among paths of the same length", "http://www.host.test/",
            [
                "A=a; path=/foo/bar", "X=x; path=/foo/bar", "Y=y; path=/foo/bar/baz/qux",
                "B=b; path=/foo/bar/baz/qux", "C=c; path=/foo/bar/baz", "W=w; path=/foo/bar/baz", "Z=z; path=/foo",
                "D=d; path=/foo",
            ],
            "A=a B=b C=c D=d W=w X=x Y=y Z=z",
            [
                ("http://www.host.test/foo/bar/baz/qux", "Y=y B=b C=c W=w A=a X=x Z=z D=d"),
                ("http://www.host.test/foo/bar/baz/", "C=c W=w A=a X=x Z=z D=d"),
                ("http://www.host.test/foo/bar", "A=a X=x Z=z D=d"),
            ]),
        JarStep(
            "Cookies of the same name", "http://www.host.test/",
            [
                "A=1; path=/", "A=2; path=/path", "A=3; path=/quux", "A=4; path=/path/foo",
                "A=5; domain=.host.test; path=/path", "A=6; domain=.host.test; path=/quux",
                "A=7; domain=.host.test; path=/path/foo",
            ],
            "A=1 A=2 A=3 A=4 A=5 A=6 A=7",
            [
                ("http://www.host.test/path", "A=2 A=5 A=1"),
                ("http://www.host.test/path/foo", "A=4 A=7 A=2 A=5 A=1"),
            ]),
        JarStep(
            "No domain cookie on a public suffix", "http://www.bbc.co.uk", ["a=1", "b=2; domain=co.uk"], "a=1",
            [("http://www.bbc.co.uk", "a=1")]),
        JarStep(
            "Host cookie on an IP address", "http://192.168.0.10", ["a=1"], "a=1", [("http://192.168.0.10", "a=1")]),
        JarStep(
            "The port is ignored (set without one)", "http://www.host.test/", ["a=1"], "a=1",
            [("http://www.host.test", "a=1"), ("http://www.host.test:8080/", "a=1")]),
        JarStep(
            "The port is ignored (set with one)", "http://www.host.test:8080/", ["a=1"], "a=1",
            [
                ("http://www.host.test", "a=1"), ("http://www.host.test:8080/", "a=1"),
                ("http://www.host.test:1234/", "a=1"),
            ]),
    ]

    static let chromiumBasicSteps: [JarStep] = [
        JarStep(
            "A Domain with a trailing dot", "http://www.google.com/",
            ["a=1; domain=.www.google.com.", "b=2; domain=.www.google.com.."], "", [("http://www.google.com", "")]),
        JarStep(
            "Valid subdomains", "http://a.b.c.d.com",
            ["a=1; domain=.a.b.c.d.com", "b=2; domain=.b.c.d.com", "c=3; domain=.c.d.com", "d=4; domain=.d.com"],
            "a=1 b=2 c=3 d=4",
            [
                ("http://a.b.c.d.com", "a=1 b=2 c=3 d=4"), ("http://b.c.d.com", "b=2 c=3 d=4"),
                ("http://c.d.com", "c=3 d=4"), ("http://d.com", "d=4"),
            ]),
        JarStep(
            "Valid subdomains, names repeated", "http://a.b.c.d.com",
            [
                "a=1; domain=.a.b.c.d.com", "b=2; domain=.b.c.d.com", "c=3; domain=.c.d.com", "d=4; domain=.d.com",
                "X=bcd; domain=.b.c.d.com", "X=cd; domain=.c.d.com",
            ],
            "X=bcd X=cd a=1 b=2 c=3 d=4",
            [("http://b.c.d.com", "b=2 c=3 d=4 X=bcd X=cd"), ("http://c.d.com", "c=3 d=4 X=cd")]),
        JarStep(
            "Invalid domains", "http://foo.bar.com",
            [
                "a=1; domain=.yo.foo.bar.com", "b=2; domain=.foo.com", "c=3; domain=.bar.foo.com",
                "d=4; domain=.foo.bar.com.net", "e=5; domain=ar.com", "f=6; domain=.", "g=7; domain=/",
                "h=8; domain=http://foo.bar.com", "i=9; domain=..foo.bar.com", "j=10; domain=..bar.com",
                "k=11; domain=.foo.bar.com?blah", "l=12; domain=.foo.bar.com/blah", "m=12; domain=.foo.bar.com:80",
                "n=14; domain=.foo.bar.com:", "o=15; domain=.foo.bar.com#sup",
            ],
            "", [("http://foo.bar.com", "")]),
        JarStep(
            "A domain longer than the host", "http://foo.com.com", ["a=1; domain=.foo.com.com.com"], "",
            [("http://foo.bar.com", "")]),
        JarStep(
            "A domain without a leading dot", "http://manage.hosted.filefront.com", ["a=1; domain=filefront.com"],
            "a=1", [("http://www.filefront.com", "a=1")]),
        JarStep(
            "A domain naming the host", "http://www.google.com", ["a=1; domain=www.google.com"], "a=1",
            [("http://www.google.com", "a=1"), ("http://sub.www.google.com", "a=1"), ("http://something-else.com", "")]),
        JarStep(
            "Domains without regard to case", "http://www.google.com",
            ["a=1; domain=.GOOGLE.COM", "b=2; domain=.www.gOOgLE.coM"], "a=1 b=2",
            [("http://www.google.com", "a=1 b=2")]),
        JarStep(
            "An IP address with a path", "http://1.2.3.4/foo", ["a=1; path=/"], "a=1", [("http://1.2.3.4/foo", "a=1")]),
        JarStep(
            "No domain cookies on an IP address", "http://1.2.3.4/foo", ["a=1; domain=.1.2.3.4", "b=2; domain=.3.4"],
            "", [("http://1.2.3.4/foo", "")]),
        JarStep(
            "No Domain naming an IP address", "http://1.2.3.4/foo", ["a=1; domain=1.2.3.4"], "",
            [("http://1.2.3.4/foo", "")]),
        JarStep(
            "A top-level host with a trailing dot", "http://com./index.html", ["a=1"], "a=1",
            [("http://com./index.html", "a=1"), ("http://no-cookies.com./index.html", "")]),
        JarStep(
            "No Domain of a single label", "http://a.b", ["a=1; domain=.b", "b=2; domain=b"], "",
            [("http://bar.foo", "")]),
        JarStep(
            "No Domain of a top-level domain", "http://google.com", ["a=1; domain=.com", "b=2; domain=com"], "",
            [("http://google.com", "")]),
        JarStep(
            "No Domain of a public suffix", "http://google.co.uk", ["a=1; domain=.co.uk", "b=2; domain=.uk"], "",
            [("http://google.co.uk", ""), ("http://else.co.com", ""), ("http://else.uk", "")]),
        JarStep(
            "The host ending with a dot", "http://www.google.com", ["a=1", "b=2; domain=.www.google.com."], "a=1",
            [("http://www.google.com", "a=1")]),
        JarStep(
            "Path matching", "http://www.google.izzle", ["a=1; path=/wee"], "a=1",
            [
                ("http://www.google.izzle/wee", "a=1"), ("http://www.google.izzle/wee/", "a=1"),
                ("http://www.google.izzle/wee/war", "a=1"), ("http://www.google.izzle/wee/war/more/more", "a=1"),
                ("http://www.google.izzle/weehee", ""), ("http://www.google.izzle/", ""),
            ]),
    ]

    static let domainHandlingSteps: [JarStep] = [
        JarStep(
            "Host cookie", "http://www.host.test", ["a=1"], "a=1",
            [
                ("http://www.host.test", "a=1"), ("http://host.test", ""), ("http://bar.host.test", ""),
                ("http://foo.www.host.test", ""), ("http://other.test", ""), ("http://test", ""),
            ]),
        JarStep(
            "Domain cookie", "http://www.host.test", ["a=1; domain=host.test"], "a=1",
            [
                ("http://www.host.test", "a=1"), ("http://host.test", "a=1"), ("http://bar.host.test", "a=1"),
                ("http://foo.www.host.test", "a=1"), ("http://other.test", ""), ("http://test", ""),
            ]),
        JarStep(
            "Domain cookie with a leading dot", "http://www.host.test", ["a=1; domain=.host.test"], "a=1",
            [
                ("http://www.host.test", "a=1"), ("http://host.test", "a=1"), ("http://bar.host.test", "a=1"),
                ("http://foo.www.host.test", "a=1"), ("http://other.test", ""), ("http://test", ""),
            ]),
        JarStep(
            "Host cookie on a punycode host", "http://www.xn--bcher-kva.test", ["a=1"], "a=1",
            [
                ("http://www.xn--bcher-kva.test", "a=1"), ("http://xn--bcher-kva.test", ""),
                ("http://bar.xn--bcher-kva.test", ""), ("http://foo.www.xn--bcher-kva.test", ""),
                ("http://other.test", ""), ("http://test", ""),
            ]),
        JarStep(
            "Domain cookie on a punycode domain", "http://www.xn--bcher-kva.test", ["a=1; domain=xn--bcher-kva.test"],
            "a=1",
            [
                ("http://www.xn--bcher-kva.test", "a=1"), ("http://xn--bcher-kva.test", "a=1"),
                ("http://bar.xn--bcher-kva.test", "a=1"), ("http://foo.www.xn--bcher-kva.test", "a=1"),
                ("http://other.test", ""), ("http://test", ""),
            ]),
        JarStep(
            "Host cookie on a top-level domain", "http://com", ["a=1"], "a=1",
            [("http://com", "a=1"), ("http://any.com", ""), ("http://any.test", "")]),
        JarStep(
            "A Domain naming a top-level host makes a host cookie", "http://com", ["a=1; domain=com"], "a=1",
            [("http://com", "a=1"), ("http://any.com", ""), ("http://any.test", "")]),
        JarStep(
            "Host cookie on a public suffix", "http://co.uk", ["a=1"], "a=1",
            [
                ("http://co.uk", "a=1"), ("http://uk", ""), ("http://some.co.uk", ""), ("http://foo.some.co.uk", ""),
                ("http://any.uk", ""),
            ]),
        JarStep(
            "A domain cookie on a public suffix is ignored", "http://some.co.uk", ["a=1; domain=co.uk"], "",
            [
                ("http://co.uk", ""), ("http://uk", ""), ("http://some.co.uk", ""), ("http://foo.some.co.uk", ""),
                ("http://any.uk", ""),
            ]),
    ]

    @Test("Basics, each on an empty jar", arguments: basicSteps)
    func basics(step: JarStep) throws {
        let (jar, time) = makeTableJar()
        try step.run(on: jar, time: time)
    }

    @Test("Chromium's basics, each on an empty jar", arguments: chromiumBasicSteps)
    func chromiumBasics(step: JarStep) throws {
        let (jar, time) = makeTableJar()
        try step.run(on: jar, time: time)
    }

    @Test("Domain handling, each on an empty jar", arguments: domainHandlingSteps)
    func domainHandling(step: JarStep) throws {
        let (jar, time) = makeTableJar()
        try step.run(on: jar, time: time)
    }
}
