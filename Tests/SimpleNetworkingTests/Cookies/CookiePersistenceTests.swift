import Foundation
import SimpleNetworking
import Testing

@Suite("Cookie jar files")
struct CookiePersistenceTests {
    /// A fresh directory of the test's own, removed afterwards.
    static func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cookies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    @Test("Saved cookies load back; session and expired cookies are left out; the file is owner-only")
    func roundTrip() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("jar.json")
            let time = ManualTime(jarTableStart)
            let jar = CookieJar(now: time.now)
            let site = try #require(URL(string: "https://www.example.com/app/page"))
            jar.receive(
                setCookie: [
                    "session=1", "kept=2; Max-Age=3600; Secure; HttpOnly; SameSite=Lax; Domain=example.com",
                    "short=3; Max-Age=5",
                ], from: site)
            time.advance(10)
            try jar.save(to: file)

            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(leftovers == ["jar.json"])

            let loaded = CookieJar(now: time.now)
            try loaded.load(from: file)
            #expect(loaded.cookies == jar.cookies.filter { !$0.isSession })
            #expect(loaded.cookies.map(\.name) == ["kept"])
            let kept = try #require(loaded.cookies.first)
            #expect(kept.isSecure && kept.isHTTPOnly && kept.sameSite == .lax && !kept.isHostOnly)
            #expect(kept.path == "/app")
            #expect(loaded.cookieHeader(for: site) == "kept=2")
        }
    }

    @Test("Saving again replaces the file and keeps it owner-only")
    func replace() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("jar.json")
            try Data("old".utf8).write(to: file)
            let jar = CookieJar()
            jar.add(Cookie(name: "a", value: "1", domain: "example.com", expires: Date().addingTimeInterval(3600)))
            try jar.save(to: file)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let loaded = CookieJar()
            try loaded.load(from: file)
            #expect(loaded.cookies.map(\.headerPair) == ["a=1"])
        }
    }

    @Test(
        "A file that is not a saved jar is a clear error, and nothing is loaded",
        arguments: [
            "", "not json", "[]", #"{"version":1}"#, #"{"version":2,"cookies":[]}"#, #"{"version":1,"cookies":{}}"#,
            #"{"version":"1","cookies":[]}"#,
        ])
    func corrupt(contents: String) throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("jar.json")
            try Data(contents.utf8).write(to: file)
            let jar = CookieJar()
            jar.add(Cookie(name: "before", value: "1", domain: "example.com"))
            #expect {
                try jar.load(from: file)
            } throws: { error in
                guard case .corruptFile(let path, _) = error as? CookieJarError else { return false }
                return path == file.path
            }
            #expect(jar.cookies.map(\.name) == ["before"])
        }
    }

    /// Entries a file may hold that no cookie can be made of; each is skipped with its reason, never the file.
    static let unusableEntries: [(entry: String, reason: String)] = [
        (#"{"name":"a"}"#, "value is missing at cookies.[1]"),
        (
            #"{"name":"a","value":1,"domain":"example.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0}"#,
            "a value of the wrong type at cookies.[1].value"
        ),
        (#""not an object""#, "a value of the wrong type at cookies.[1]"),
        (
            #"{"name":"","value":"secret","domain":"example.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}"#,
            "a cookie has an empty name"
        ),
        (
            #"{"name":"a","value":"se;cret","domain":"example.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}"#,
            "a cookie name or value holds a character a Cookie header cannot carry"
        ),
        (
            #"{"name":"a","value":"secret","domain":"","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}"#,
            "a cookie has an empty or malformed domain"
        ),
        (
            #"{"name":"a","value":"secret","domain":"..","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}"#,
            "a cookie has an empty or malformed domain"
        ),
        (
            #"{"name":"a","value":"secret","domain":"example.com","path":"x","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}"#,
            "a cookie path does not start with / or holds a control character or ;"
        ),
        (
            #"{"name":"a","value":"secret","domain":"example.com","path":"/a\u0000b","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}"#,
            "a cookie path does not start with / or holds a control character or ;"
        ),
    ]

    @Test("An unusable entry is skipped and reported; the entries around it load", arguments: unusableEntries)
    func unusableEntry(entry: String, reason: String) throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("jar.json")
            let good = { (name: String) in
                #"{"name":"\#(name)","value":"1","domain":"example.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}"#
            }
            let contents =
                #"{"version":1,"cookies":["# + [good("first"), entry, good("last")].joined(separator: ",") + "]}"
            try Data(contents.utf8).write(to: file)
            let jar = CookieJar()

            let report = try jar.load(from: file)

            #expect(jar.cookies.map(\.name).sorted() == ["first", "last"])
            #expect(report.loaded == 2)
            #expect(report.skipped == [CookieJar.LoadReport.SkippedEntry(index: 1, reason: reason)])
            #expect(!report.description.contains("secret"))
        }
    }

    @Test("Expired entries are left out and counted, not reported as skipped")
    func expiredEntries() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("jar.json")
            let contents =
                #"{"version":1,"cookies":[{"name":"old","value":"1","domain":"example.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":1}]}"#
            try Data(contents.utf8).write(to: file)

            let report = try CookieJar().load(from: file)

            #expect(
                report
                    == {
                        var expected = CookieJar.LoadReport(); expected.expired = 1; return expected
                    }())
        }
    }

    /// Fields a server can send that the jar once stored but could not load back from its own file.
    @Test(
        "Whatever the jar stores from a server, it saves and loads back",
        arguments: [
            ("https://example.com/a", "x=1; Max-Age=3600; Path=/a\tb"),
            ("https://example.com/", "foo=春节回家路·春运完全手册; Max-Age=3600"),
            ("https://example.com/", "名前=値; Max-Age=3600; Path=/パス"),
            ("https://example.com/", "t=a\tb; Max-Age=3600"),
            ("http://../", "x=1; Max-Age=3600"),
            ("http://a..b/", "x=1; Max-Age=3600"),
        ])
    func roundTrip(url: String, field: String) throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("jar.json")
            let jar = CookieJar()
            jar.add(Cookie(name: "other-site", value: "1", domain: "example.org", expires: .distantFuture))
            jar.receive(setCookie: [field], from: try #require(URL(string: url)))
            try jar.save(to: file)

            let loaded = CookieJar()
            let report = try loaded.load(from: file)

            #expect(report.skipped.isEmpty, "\(report)")
            #expect(Set(loaded.cookies) == Set(jar.cookies))
            #expect(loaded.cookies.contains { $0.name == "other-site" })
        }
    }

    @Test("A missing file or directory is a clear error")
    func missing() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("absent/jar.json")
            #expect(
                throws: CookieJarError.unreadableFile(path: file.path, reason: "no such file, or it cannot be opened")
            ) {
                try CookieJar().load(from: file)
            }
            #expect {
                try CookieJar().save(to: file)
            } throws: { error in
                guard case .unwritableFile(let path, _) = error as? CookieJarError else { return false }
                return path == file.path
            }
        }
    }
}
