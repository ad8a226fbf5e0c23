import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

func cookieSample(baseURL: URL, cookieFile: URL) async throws -> [String] {
    // DOC-SAMPLE: Cookies/cookies
    let api = SimpleNetworking(baseURL: baseURL)
    _ = try await api.post("/login").body(jsonObject: ["user": "ada"]).response()
    // The login's session cookie now goes with every request to that host, redirects included.
    let user = try await api.get("/users/1").decode(User.self)

    if let jar = api.cookieJar {
        print(jar.cookies)  // name, domain, path, expiry and flags; values redacted
        try jar.save(to: cookieFile)  // persistent cookies only, in a file only you can read
        let report = try jar.load(from: cookieFile)
        print(report)  // loaded, expired, and each skipped entry with its reason
    }

    var shared = SimpleNetworking.Configuration()
    shared.cookies = .shared(CookieJar())  // one login for several clients; or .disabled
    // DOC-SAMPLE-END
    api.close()
    return [user.name] + (api.cookieJar?.cookies.map(\.name) ?? [])
}

@Suite("The Cookies article's sample runs")
struct CookieReadmeSampleTests {
    @Test("The login cookie goes with the next request and survives a save and load")
    func cookieSampleRuns() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/login"
                ? .text("in", headers: [("Set-Cookie", "session=1; Max-Age=3600; Path=/")])
                : .json(#"{"id": 1, "name": "Ada"}"#)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("readme-cookies-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await cookieSample(baseURL: server.baseURL, cookieFile: file)
        #expect(result == ["Ada", "session"])
        #expect(server.requests.last?.header("Cookie") == "session=1")
    }
}
