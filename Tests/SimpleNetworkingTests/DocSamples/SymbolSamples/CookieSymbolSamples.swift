import Foundation
import SimpleNetworking
import Testing

// The Swift samples of the `///` comments in Sources/SimpleNetworking/Cookies/: each region is shown verbatim by the
// comment its name points to.

/// The Cookies samples, in a namespace of their own.
enum CookieSymbolSamples {
    // swift-format-ignore: NeverForceUnwrap
    static func jar() -> String? {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Cookies/CookieJar.swift#jar
        let jar = CookieJar()
        jar.receive(setCookie: ["session=abc; Path=/; HttpOnly"], from: URL(string: "https://example.com/login")!)
        let header = jar.cookieHeader(for: URL(string: "https://example.com/account")!)  // "session=abc"
        // SYMBOL-SAMPLE-END
        return header
    }
}

@Suite("The Cookies comments' samples run")
struct CookieSymbolSampleTests {
    @Test("The jar sends the cookie it received to another path of the site")
    func jar() {
        #expect(CookieSymbolSamples.jar() == "session=abc")
    }
}
