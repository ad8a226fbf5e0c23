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
        "A corrupt file is a clear error, and nothing is loaded",
        arguments: [
            "", "not json", "[]", #"{"version":1}"#, #"{"version":2,"cookies":[]}"#,
            #"{"version":1,"cookies":[{"name":"a"}]}"#,
            #"{"version":1,"cookies":[{"name":"","value":"secret","domain":"example.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}]}"#,
            #"{"version":1,"cookies":[{"name":"a","value":"se;cret","domain":"example.com","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}]}"#,
            #"{"version":1,"cookies":[{"name":"a","value":"secret","domain":"","path":"/","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}]}"#,
            #"{"version":1,"cookies":[{"name":"a","value":"secret","domain":"example.com","path":"x","isSecure":false,"isHTTPOnly":false,"isHostOnly":true,"creation":0,"expires":4102444800}]}"#,
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
                return path == file.path && !"\(error)".contains("secret")
            }
            #expect(jar.cookies.map(\.name) == ["before"])
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
