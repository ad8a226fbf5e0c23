import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Path templates")
struct PathTemplateTests {
    /// What path arrives at the server for `/users/{id}` below the base path `/v1`, or `nil` when the request must
    /// fail with `invalidURL` before anything is sent.
    // Serialized: twenty loopback servers at once slow the other tests' timing windows under ThreadSanitizer.
    @Test(
        "Each value is sent as one percent-encoded segment, and cannot leave the base path", .serialized,
        arguments: [
            ("42", "/v1/users/42/posts"),
            ("a/b?c d", "/v1/users/a%2Fb%3Fc%20d/posts"),
            ("#top", "/v1/users/%23top/posts"),
            ("100%", "/v1/users/100%25/posts"),
            ("%41", "/v1/users/%2541/posts"),
            ("%2e%2e", "/v1/users/%252e%252e/posts"),
            (":@!$&'()*+,;=", "/v1/users/%3A%40%21%24%26%27%28%29%2A%2B%2C%3B%3D/posts"),
            ("[]{}|\\^`\"<>", "/v1/users/%5B%5D%7B%7D%7C%5C%5E%60%22%3C%3E/posts"),
            ("-._~AZaz09", "/v1/users/-._~AZaz09/posts"),
            ("ü名🐱", "/v1/users/%C3%BC%E5%90%8D%F0%9F%90%B1/posts"),
            ("...", "/v1/users/.../posts"),
            (".hidden", "/v1/users/.hidden/posts"),
            ("//evil.example", "/v1/users/%2F%2Fevil.example/posts"),
            ("http://evil.example", "/v1/users/http%3A%2F%2Fevil.example/posts"),
            ("\t\n", "/v1/users/%09%0A/posts"),
            ("", nil),
            (".", nil),
            ("..", nil),
            ("../admin", nil),
            ("a/../..", nil),
        ] as [(String, String?)])
    func valueEncoding(value: String, expected: String?) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server.url("/v1"))
        defer { api.close() }
        let result = await outcome {
            try await api.get("/users/{id}/posts", path: ["id": value]).response()
        }
        if let expected {
            #expect(result.failureValue == nil)
            #expect(server.requests.map(\.path) == [expected])
        } else {
            guard case .invalidURL = result.failureValue else {
                Issue.record("expected invalidURL, got \(result)")
                return
            }
            #expect(server.requestCount == 0)
        }
    }

    @Test(
        "A missing, unknown or malformed placeholder is invalidURL and nothing is sent", .serialized,
        arguments: [
            ("/users/{id}", [:], "no value for the placeholder {id}"),
            ("/users/{id}", ["id": "1", "extra": "2"], "no placeholder {extra}"),
            ("/users/{id}", ["ID": "1"], "no value for the placeholder {id}"),
            ("/users/{id", ["id": "1"], "'{' without a matching '}'"),
            ("/users/id}", ["id": "1"], "'}' without a '{'"),
            ("/users/{{id}}", ["id": "1"], "'{' without a matching '}'"),
            ("/users/{}", [:], "empty placeholder"),
        ] as [(String, [String: String], String)])
    func placeholderErrors(template: String, values: [String: String], reason: String) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        do {
            _ = try await api.get(template, path: values).response()
            Issue.record("expected invalidURL")
        } catch .invalidURL(let message) {
            #expect(message.contains(reason))
            #expect(!message.contains("\"1\""))
        } catch {
            Issue.record("expected invalidURL, got \(error)")
        }
        #expect(server.requestCount == 0)
    }

    @Test("Several placeholders fill in order, within segments, and a query in the template is kept")
    func severalPlaceholders() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(200) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let template: PathTemplate = "/orgs/{org}/repos/{repo}.json?page=2"
        #expect(try template.placeholders() == ["org", "repo"])
        _ = try await api.delete(template.text, path: ["repo": "a b", "org": "x/y"]).response()
        #expect(server.requests.map(\.method) == ["DELETE"])
        #expect(server.requests.map(\.target) == ["/orgs/x%2Fy/repos/a%20b.json?page=2"])
    }
}
