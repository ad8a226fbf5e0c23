import Foundation
import SimpleNetworking
import Testing

/// Go's `net/http/cookiejar` tables whose steps run one after another on the same jar: update and delete,
/// expiration, and the Chromium-derived domain and deletion tables.
@Suite("Cookie jar sequences")
struct CookieJarSequenceTests {
    /// Go sets and updates the Secure cookies over http; here that happens over https, and an http response cannot
    /// replace them (RFC 6265bis, as browsers do), which the step "http cannot replace Secure cookies" shows.
    @Test("Update and delete")
    func updateAndDelete() throws {
        let (jar, time) = makeTableJar()
        let steps = [
            JarStep(
                "Set initial cookies", "https://www.host.test",
                ["a=1", "b=2; secure", "c=3; httponly", "d=4; secure; httponly"],
                "a=1 b=2 c=3 d=4", [("http://www.host.test", "a=1 c=3"), ("https://www.host.test", "a=1 b=2 c=3 d=4")]),
            JarStep(
                "Update values", "https://www.host.test",
                ["a=w", "b=x; secure", "c=y; httponly", "d=z; secure; httponly"],
                "a=w b=x c=y d=z", [("http://www.host.test", "a=w c=y"), ("https://www.host.test", "a=w b=x c=y d=z")]),
            JarStep(
                "http cannot replace Secure cookies", "http://www.host.test/", ["b=xx", "d=zz; httponly"],
                "a=w b=x c=y d=z", [("http://www.host.test", "a=w c=y")]),
            JarStep(
                "Clear the Secure flag from https", "https://www.host.test/", ["b=xx", "d=zz; httponly"],
                "a=w b=xx c=y d=zz", [("http://www.host.test", "a=w b=xx c=y d=zz")]),
            JarStep(
                "Delete all", "http://www.host.test/",
                [
                    "a=1; max-Age=-1", "b=2; " + expiresIn(-10), "c=2; max-age=-1; " + expiresIn(-10),
                    "d=4; max-age=-1; " + expiresIn(10),
                ],
                "", [("http://www.host.test", "")]),
            JarStep(
                "Refill", "http://www.host.test",
                ["A=1", "A=2; path=/foo", "A=3; domain=.host.test", "A=4; path=/foo; domain=.host.test"],
                "A=1 A=2 A=3 A=4", [("http://www.host.test/foo", "A=2 A=4 A=1 A=3")]),
            JarStep(
                "Refill another domain", "http://www.google.com",
                ["A=6", "A=7; path=/foo", "A=8; domain=.google.com", "A=9; path=/foo; domain=.google.com"],
                "A=1 A=2 A=3 A=4 A=6 A=7 A=8 A=9",
                [("http://www.host.test/foo", "A=2 A=4 A=1 A=3"), ("http://www.google.com/foo", "A=7 A=9 A=6 A=8")]),
            JarStep(
                "Delete A7", "http://www.google.com", ["A=; path=/foo; max-age=-1"], "A=1 A=2 A=3 A=4 A=6 A=8 A=9",
                [("http://www.host.test/foo", "A=2 A=4 A=1 A=3"), ("http://www.google.com/foo", "A=9 A=6 A=8")]),
            JarStep(
                "Delete A4", "http://www.host.test", ["A=; path=/foo; domain=host.test; max-age=-1"],
                "A=1 A=2 A=3 A=6 A=8 A=9",
                [("http://www.host.test/foo", "A=2 A=1 A=3"), ("http://www.google.com/foo", "A=9 A=6 A=8")]),
            JarStep(
                "Delete A6", "http://www.google.com", ["A=; max-age=-1"], "A=1 A=2 A=3 A=8 A=9",
                [("http://www.host.test/foo", "A=2 A=1 A=3"), ("http://www.google.com/foo", "A=9 A=8")]),
            JarStep(
                "Delete A3", "http://www.host.test", ["A=; domain=host.test; max-age=-1"], "A=1 A=2 A=8 A=9",
                [("http://www.host.test/foo", "A=2 A=1"), ("http://www.google.com/foo", "A=9 A=8")]),
            JarStep(
                "No cross-domain delete", "http://www.host.test",
                ["A=; domain=google.com; max-age=-1", "A=; path=/foo; domain=google.com; max-age=-1"],
                "A=1 A=2 A=8 A=9",
                [("http://www.host.test/foo", "A=2 A=1"), ("http://www.google.com/foo", "A=9 A=8")]),
            JarStep(
                "Delete A8 and A9", "http://www.google.com",
                ["A=; domain=google.com; max-age=-1", "A=; path=/foo; domain=google.com; max-age=-1"], "A=1 A=2",
                [("http://www.host.test/foo", "A=2 A=1"), ("http://www.google.com/foo", "")]),
        ]
        for step in steps { try step.run(on: jar, time: time) }
    }

    @Test("Expiration by Max-Age and Expires, with an injected clock")
    func expiration() throws {
        let (jar, time) = makeTableJar()
        let step = JarStep(
            "Expiration", "http://www.host.test",
            [
                "a=1", "b=2; max-age=3", "c=3; " + expiresIn(3), "d=4; max-age=5", "e=5; " + expiresIn(5),
                "f=6; max-age=100",
            ],
            "a=1 b=2 c=3 d=4 e=5 f=6",
            [
                ("http://www.host.test", "a=1 b=2 c=3 d=4 e=5 f=6"), ("http://www.host.test", "a=1 d=4 e=5 f=6"),
                ("http://www.host.test", "a=1 d=4 e=5 f=6"), ("http://www.host.test", "a=1 f=6"),
                ("http://www.host.test", "a=1 f=6"),
            ])
        try step.run(on: jar, time: time)
    }

    @Test("Chromium's domain steps")
    func chromiumDomain() throws {
        let (jar, time) = makeTableJar()
        let steps = [
            JarStep("Fill", "http://www.google.izzle", ["A=B"], "A=B", [("http://www.google.izzle", "A=B")]),
            JarStep(
                "Fill a domain cookie", "http://www.google.izzle", ["C=D; domain=.google.izzle"], "A=B C=D",
                [("http://www.google.izzle", "A=B C=D")]),
            JarStep("A is host-only", "http://unused.nil", [], "A=B C=D", [("http://foo.www.google.izzle", "C=D")]),
            JarStep(
                "Domain cookies on their own domain", "http://www.google.izzle", ["E=F; domain=.www.google.izzle"],
                "A=B C=D E=F", [("http://www.google.izzle", "A=B C=D E=F")]),
            JarStep(
                "The leading dot is optional", "http://www.google.izzle", ["G=H; domain=www.google.izzle"],
                "A=B C=D E=F G=H", [("http://www.google.izzle", "A=B C=D E=F G=H")]),
            JarStep(
                "No domain below the host", "http://www.google.izzle", ["K=L; domain=.bar.www.google.izzle"],
                "A=B C=D E=F G=H", [("http://bar.www.google.izzle", "C=D E=F G=H")]),
            JarStep(
                "Still all there", "http://unused.nil", [], "A=B C=D E=F G=H",
                [("http://www.google.izzle", "A=B C=D E=F G=H")]),
        ]
        for step in steps { try step.run(on: jar, time: time) }
    }

    @Test("Chromium's deletion steps")
    func chromiumDeletion() throws {
        let (jar, time) = makeTableJar()
        let steps = [
            JarStep("Session cookie a", "http://www.google.com", ["a=1"], "a=1", [("http://www.google.com", "a=1")]),
            JarStep(
                "Delete a by Max-Age", "http://www.google.com", ["a=1; max-age=-1"], "", [("http://www.google.com", "")]
            ),
            JarStep("Session cookie b", "http://www.google.com", ["b=2"], "b=2", [("http://www.google.com", "b=2")]),
            JarStep(
                "Delete b by Expires", "http://www.google.com", ["b=2; " + expiresIn(-10)], "",
                [("http://www.google.com", "")]),
            JarStep(
                "Persistent cookie c", "http://www.google.com", ["c=3; max-age=3600"], "c=3",
                [("http://www.google.com", "c=3")]),
            JarStep(
                "Delete c by Max-Age", "http://www.google.com", ["c=3; max-age=-1"], "", [("http://www.google.com", "")]
            ),
            JarStep(
                "Persistent cookie d", "http://www.google.com", ["d=4; max-age=3600"], "d=4",
                [("http://www.google.com", "d=4")]),
            JarStep(
                "Delete d by Expires", "http://www.google.com", ["d=4; " + expiresIn(-10)], "",
                [("http://www.google.com", "")]),
        ]
        for step in steps { try step.run(on: jar, time: time) }
    }
}
