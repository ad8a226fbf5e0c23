import Foundation
import SimpleNetworking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The URLSession transport's shortcuts for the common case agree with the general checks they spare: a shortcut may
/// only answer where the answer is certain, and leaves everything else to the general check.
@Suite("URLSession transport shortcuts")
struct URLSessionShortcutTests {
    /// Hosts the one-pass check may pass without `Origin`'s label splitting, and hosts it must leave to it: every host
    /// "Hosts FoundationNetworking cannot send to" refuses is among the latter.
    @Test(
        "Only names and dotted-decimal IPv4 addresses are plain hosts",
        arguments: [
            ("127.0.0.1", true), ("255.255.255.255", true), ("0.0.0.0", true), ("localhost", true),
            ("LOCALHOST", true), ("example.com", true), ("example.com.", true), ("1.example.com", true),
            ("example.1a", false), ("a..", true), ("", true),
            ("[::1]", false), ("::1", false), ("127.1", false), ("2130706433", false), ("0x7f.0.0.1", false),
            ("0177.0.0.1", false), ("127.000.000.001", false), ("127.0.0.01", false), ("256.0.0.1", false),
            ("1.2.3.4.", false), ("1.2.3.4.5", false), ("1.2.3", false), ("1..2.3", false), ("example.1", false),
            ("example.1.", false), ("1.2.3.4\u{301}", false),
        ])
    func plainHosts(host: String, plain: Bool) {
        #expect(URLSessionTransport.isPlainHost(host) == plain)
    }

    /// A new `URLRequest` is a GET already, so the method is set only for other methods: every method still arrives
    /// as `URLRequest` itself spells it when set.
    @Test("The URLRequest carries every method, header and body", arguments: ["GET", "POST", "HEAD", "get", "PURGE"])
    func urlRequestCarriesMethod(method: String) throws {
        let url = try #require(URL(string: "http://127.0.0.1:9/path"))
        var direct = URLRequest(url: url)
        direct.httpMethod = method
        let plain = URLSessionTransport.urlRequest(
            for: HTTPRequest(method: HTTPMethod(rawValue: method), url: url), timeout: 5)
        #expect(plain.httpMethod == direct.httpMethod)
        #expect(plain.httpBody == nil)
        #expect(plain.allHTTPHeaderFields?.isEmpty ?? true)

        let full = URLSessionTransport.urlRequest(
            for: HTTPRequest(
                method: HTTPMethod(rawValue: method), url: url, headers: ["Accept": "a", "X-Two": "b"],
                body: Data("body".utf8)),
            timeout: 5)
        #expect(full.httpMethod == direct.httpMethod)
        #expect(full.httpBody == Data("body".utf8))
        #expect(full.allHTTPHeaderFields == ["Accept": "a", "X-Two": "b"])
    }
}
