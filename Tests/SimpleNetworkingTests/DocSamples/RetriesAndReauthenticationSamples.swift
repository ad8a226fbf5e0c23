import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// DOC-SAMPLE: RetriesAndReauthentication/subclass-reauthentication
final class MyAPIManager: SimpleNetworking, @unchecked Sendable {
    var token: String? {
        get { defaultHeaders["X-Authorization"] }
        set { defaultHeaders["X-Authorization"] = newValue }
    }

    func authenticate(_ callback: @escaping @Sendable () -> Void) {
        self.get("/auth") { request in
            request.accept(.json)
                .on(success: { [weak self] response in
                    self?.token = response.json?["token"] as? String
                    callback()
                })
        }
    }

    override func execute(request: SimpleRequest) {
        if request.httpStatusHandlers[401] == nil {
            request.on(httpStatus: 401) { request, _ in
                self.authenticate { request.retry() }
                return false
            }
        }
        super.execute(request: request)
    }
}
// DOC-SAMPLE-END

func perRequestOverrides(api: SimpleNetworking) async throws -> SimpleResponse {
    // DOC-SAMPLE: RetriesAndReauthentication/per-request
    let response = try await api.post("/payments")
        .header("Idempotency-Key", UUID().uuidString)  // opts POST into automatic retries
        .body(json: ["amount": 42])
        .retryPolicy(RetryPolicy(maximumAttempts: 5))
        .timeout(2.5)
        .deadline(10)
        .response()
    print(response.attempts)  // [#1 after 0 ms: 503, #2 after 310 ms: 201]
    // DOC-SAMPLE-END
    return response
}

/// The article's copy of README.md's recommended subclass, in a namespace of its own so both can be compiled.
enum RetriesArticle {
    // DOC-SAMPLE: RetriesAndReauthentication/reauthenticate
    final class MyAPI: SimpleNetworking, @unchecked Sendable {
        override func authenticate() async throws {
            let response = try await get("/auth").accept(.json).response()
            defaultHeaders["Authorization"] = "Bearer \(response.json?["token"] as? String ?? "")"
        }

        override func execute(request: SimpleRequest) {
            reauthenticate(request, on: 401)
            super.execute(request: request)
        }
    }
    // DOC-SAMPLE-END
}

@Suite("The RetriesAndReauthentication article's samples run")
struct RetriesArticleSampleTests {
    @Test("The article's subclass refreshes the token once and retries the 401")
    func reauthenticates() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            if request.path == "/auth" { return .json(#"{"token": "fresh"}"#) }
            return request.header("Authorization") == "Bearer fresh" ? .json(#"{"ok": true}"#) : .status(401)
        }
        let api = RetriesArticle.MyAPI(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await api.get("/me").response().statusCode == 200)
        #expect(server.requests.map(\.path) == ["/me", "/auth", "/me"])
    }
}
