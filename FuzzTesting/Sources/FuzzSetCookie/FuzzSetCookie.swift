import Foundation
import FuzzHarness
import SimpleNetworking

/// `CookieJar.receive(setCookie:from:)` on any `Set-Cookie` fields from any of a few URLs.
///
/// Invariant: no trap; every cookie the jar then holds passes the jar's own rules (an empty jar's `add(_:)` takes
/// it); and `save(to:)` then `load(from:)` into a new jar gives back exactly the persistent cookies.
///
/// Input: the selector byte picks the URL (its value modulo 8, so seed files start with a digit `0`-`7`); the
/// fields follow, separated by `0xFF`, each decoded from UTF-8 with repair as a transport decodes header bytes.
@main
enum FuzzSetCookie: FuzzTarget {
    /// Plain and secure origins with a path, an IP address, a public suffix, loopback, an IPv6 literal, an
    /// upper-case host with a trailing dot, and a host of dots.
    static let urls: [URL] = [
        "http://example.com/a/b", "https://www.example.com/dir/page", "http://192.168.0.1/x/y", "https://co.uk/",
        "https://localhost:8443/", "http://[::1]/a", "https://WWW.Example.COM./Dir/", "http://../",
    ].map { text in
        guard let url = URL(string: text) else { fatalError("the target's URL \(text) does not parse") }
        return url
    }

    static func check(_ input: FuzzInput) {
        let jar = CookieJarChecks.makeJar()
        jar.receive(setCookie: input.fields, from: urls[Int(input.selector) % urls.count])
        CookieJarChecks.requireConsistency(of: jar)
    }
}
