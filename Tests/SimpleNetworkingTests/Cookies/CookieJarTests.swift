import Foundation
import SimpleNetworking
import Testing

@Suite("Cookie jar")
struct CookieJarTests {
    // swift-format-ignore: NeverForceUnwrap
    static let site = URL(string: "https://www.example.com/account")!  // a literal that always parses

    @Test("Cookies can be listed, added, removed and cleared")
    func listAddRemoveClear() throws {
        let time = ManualTime(jarTableStart)
        let jar = CookieJar(now: time.now)
        jar.receive(
            setCookie: ["a=1", "b=2; Domain=example.com; Path=/; Max-Age=60; HttpOnly; SameSite=Strict"],
            from: Self.site)
        let added = jar.add(Cookie(name: "c", value: "3", domain: ".Example.com", isHostOnly: false))
        #expect(added)
        #expect(!jar.add(Cookie(name: "", value: "x", domain: "example.com")))
        #expect(!jar.add(Cookie(name: "d", value: "x;y", domain: "example.com")))
        #expect(!jar.add(Cookie(name: "e", value: "x", domain: "example.com", expires: jarTableStart)))

        #expect(jar.cookies.map(\.name) == ["a", "b", "c"])
        let b = try #require(jar.cookies.first { $0.name == "b" })
        #expect(b.domain == "example.com" && !b.isHostOnly && b.isHTTPOnly && b.sameSite == .strict)
        #expect(b.expires == jarTableStart.addingTimeInterval(60))
        #expect(jar.cookieHeader(for: Self.site) == "a=1; b=2; c=3")
        #expect(jar.cookies(for: try #require(URL(string: "https://api.example.com/"))).map(\.name) == ["b", "c"])

        #expect(jar.remove(b))
        #expect(!jar.remove(b))
        #expect(jar.cookies.map(\.name) == ["a", "c"])
        jar.removeAll()
        #expect(jar.cookies.isEmpty)
        #expect(jar.cookieHeader(for: Self.site) == nil)
    }

    @Test("An update keeps the creation time, so the order of the Cookie header stays")
    func updateKeepsCreation() throws {
        let time = ManualTime(jarTableStart)
        let jar = CookieJar(now: time.now)
        jar.receive(setCookie: ["a=1", "b=1"], from: Self.site)
        time.advance(10)
        jar.receive(setCookie: ["a=2"], from: Self.site)
        #expect(jar.cookieHeader(for: Self.site) == "a=2; b=1")
        #expect(jar.cookies.first?.creation == jarTableStart)
    }

    @Test("A cookie's description leaves its value out")
    func descriptionRedacts() {
        let cookie = Cookie(name: "session", value: "secret-value", domain: "example.com", isSecure: true)
        #expect(!cookie.description.contains("secret-value"))
        #expect(cookie.description.contains("session=<redacted>"))
    }

    /// The limits of RFC 6265 section 6.1: per registrable domain and in all, expired cookies evicted first, then
    /// the oldest.
    @Test("A hostile server cannot grow the jar past its limits")
    func limits() throws {
        let jar = CookieJar()
        jar.receive(setCookie: (0..<1_000).map { "c\($0)=\($0)" }, from: Self.site)
        #expect(jar.cookies.count == jar.maximumCookiesPerDomain)
        #expect(jar.maximumCookiesPerDomain >= 50 && jar.maximumCookies >= 3000)
        // The newest survive; the oldest went first.
        #expect(jar.cookies.last?.name == "c999")
        #expect(jar.cookies.first?.name == "c\(1_000 - jar.maximumCookiesPerDomain)")

        let big = String(repeating: "v", count: CookieJar.maximumCookieSize)
        jar.receive(setCookie: ["huge=" + big], from: Self.site)
        #expect(!jar.cookies.contains { $0.name == "huge" })
    }

    @Test("The total limit spans domains, and expired cookies are evicted before older live ones")
    func totalLimitEvictsExpiredFirst() throws {
        let time = ManualTime(jarTableStart)
        let jar = CookieJar(maximumCookiesPerDomain: 3, maximumCookies: 4, now: time.now)
        jar.receive(setCookie: ["old=1"], from: try #require(URL(string: "http://a.test/")))
        jar.receive(setCookie: ["short=1; Max-Age=5"], from: try #require(URL(string: "http://b.test/")))
        jar.receive(setCookie: ["x=1", "y=1"], from: try #require(URL(string: "http://c.test/")))
        time.advance(10)
        jar.receive(setCookie: ["z=1"], from: try #require(URL(string: "http://d.test/")))
        #expect(jar.cookies.map(\.name) == ["old", "x", "y", "z"])
        jar.receive(setCookie: ["w=1"], from: try #require(URL(string: "http://e.test/")))
        #expect(jar.cookies.map(\.name) == ["x", "y", "z", "w"])
        jar.receive(setCookie: ["p=1", "q=1", "r=1"], from: try #require(URL(string: "http://c.test/")))
        #expect(jar.cookies.filter { $0.domain == "c.test" }.map(\.name) == ["p", "q", "r"])
    }

    @Test("Cookies of one registrable domain share its limit, and other domains keep theirs")
    func perDomainLimit() throws {
        let jar = CookieJar(maximumCookiesPerDomain: 50)
        for index in 0..<60 {
            jar.receive(
                setCookie: ["c\(index)=1"], from: try #require(URL(string: "https://s\(index % 3).example.com/")))
        }
        jar.receive(setCookie: ["kept=1"], from: try #require(URL(string: "https://other.test/")))
        #expect(jar.cookies.filter { $0.domain.hasSuffix("example.com") }.count == 50)
        #expect(jar.cookies.contains { $0.name == "kept" })
    }

    @Test("A jar shared between threads stays consistent")
    func concurrentUse() async throws {
        let jar = CookieJar(maximumCookiesPerDomain: 1000)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        jar.receive(setCookie: ["t\(task)i\(index)=1"], from: Self.site)
                        _ = jar.cookieHeader(for: Self.site)
                    }
                }
            }
        }
        #expect(jar.cookies.count == 200)
    }
}
