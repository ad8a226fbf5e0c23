import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

/// The engine keeps repeated `Set-Cookie` fields apart, so the jar reads each as the server wrote it: nothing is ever
/// split at a comma, and none of the inputs that are ambiguous on URLSession transports (<doc:Cookies>) is.
@Suite("AsyncHTTPClient engine: Set-Cookie fields")
struct SetCookieFieldTests {
    @Test("Each field reaches the jar whole: commas in values never split, attribute-less cookies stay apart")
    func fieldsStayApart() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let fields = [
            "pref=en, session=attacker; Path=/", "a=1", "b=2", "z=y; x=1, c=3", "=", "d=4", "foo=春节回家路·春运完全手册",
        ]
        server.route { request in
            request.path == "/set" ? .text("ok", headers: fields.map { ("Set-Cookie", $0) }) : .text("me")
        }
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .never
        let api = SimpleNetworking(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), configuration: configuration)
        defer { api.close() }

        let response = try await api.get("/set").response()
        _ = try await api.get("/me").response()

        #expect(response.headers.values(for: "Set-Cookie") == fields)
        let jar = try #require(api.cookieJar)
        let cookies = Dictionary(uniqueKeysWithValues: jar.cookies.map { ($0.name, $0.value) })
        #expect(
            cookies == [
                "pref": "en, session=attacker", "a": "1", "b": "2", "z": "y", "d": "4", "foo": "春节回家路·春运完全手册",
            ])
        let sent = try #require(server.requests.last?.header("Cookie"))
        #expect(sent.components(separatedBy: "; ").contains("pref=en, session=attacker"))
        #expect(!sent.components(separatedBy: "; ").contains { $0.hasPrefix("session=") })
    }
}
