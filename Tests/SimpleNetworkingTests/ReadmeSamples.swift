import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// Every Swift sample in README.md is a region of this file between `README-SAMPLE: name` and `README-SAMPLE-END`;
// `ReadmeTests` checks that README.md shows each region verbatim, and the tests below run them against loopback. The
// DocC articles' samples are in `DocSamples/`, one file per article.

// README-SAMPLE: model
struct User: Decodable, Sendable {
    var id: Int
    var name: String
}
// README-SAMPLE-END

// swift-format-ignore: NeverForceUnwrap
// README-SAMPLE: shared
extension SimpleNetworking {
    static let shared = SimpleNetworking(baseURL: URL(string: "https://my.api")!)
}
// README-SAMPLE-END

func quickStart(baseURL: URL) async throws -> User {
    // README-SAMPLE: quick-start
    let api = SimpleNetworking(baseURL: baseURL)
    let user = try await api.get("/users/1").decode(User.self)
    print(user.name)
    // README-SAMPLE-END
    return user
}

func simpleGET(api: SimpleNetworking) {
    // README-SAMPLE: simple-get
    api.get("/path") { request in
        request
            .on(error: { error in print("error: \(error)") })
            .on(success: { response in print("response: \(response.json ?? [:])") })
    }
    // README-SAMPLE-END
}

// README-SAMPLE: recommended-subclass
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
// README-SAMPLE-END

func asyncAwait(api: SimpleNetworking) async -> String {
    // README-SAMPLE: async-await
    do {
        let response = try await api.post("/users")
            .body(json: ["name": "Ada"])
            .on(httpStatus: 409) { _, _ in true }  // handlers still run, in order
            .response()
        print(response.statusCode, response.headers["Location"] ?? "")
    } catch .unacceptableStatus(let response) {
        print("server said \(response.statusCode)")
    } catch {
        print(error)  // a SimpleNetworkingError: transport failure, timeout, cancelled, ...
    }
    // README-SAMPLE-END
    return "done"
}

func boundExecute(api: SimpleNetworking) {
    // README-SAMPLE: bound-execute
    api.get("/users/1")
        .on(success: { response in print(response.statusCode) })
        .execute()
    // README-SAMPLE-END
}

// README-SAMPLE: main-actor-model
@MainActor final class UserModel {
    var name = ""

    func load(from api: SimpleNetworking) {
        api.get("/users/1")
            .onMainActor(success: { response in self.name = (try? response.decode(User.self))?.name ?? "" })
            .execute()
    }
}
// README-SAMPLE-END

func queryAndValidation(api: SimpleNetworking) async throws -> [User] {
    // README-SAMPLE: query-validation
    // GET /users?q=ada&page=2&ids[]=4&ids[]=8, in the order written
    let users = try await api.get("/users")
        .query(["q": "ada", "page": 2, "ids": [4, 8]], arrays: .brackets)
        .validate(statusCode: [200])  // any other status, 2xx included, is an error
        .validate(contentType: [.json])  // so is a body of another type
        .decode([User].self)
    // README-SAMPLE-END
    return users
}

func commandLineScript(api: SimpleNetworking) {
    // README-SAMPLE: script
    // main.swift of a command-line tool: wait until the handlers are done, or the process exits first.
    let finished = DispatchSemaphore(value: 0)
    api.get("/users/1") { request in
        request
            .on(success: { response in print(response.string ?? "") })
            .on(error: { error in print("error: \(error)") })
            .on(completion: { finished.signal() })  // after the success or error handlers, once
    }
    finished.wait()
    // README-SAMPLE-END
}

@Suite("README samples run")
struct ReadmeSampleTests {
    private func makeServer() throws -> MockServer {
        let server = try MockServer()
        server.route { request in
            switch (request.method, request.path) {
            case ("GET", "/users/1"): return .json(#"{"id": 1, "name": "Ada"}"#)
            case ("GET", "/users") where request.query == "q=ada&page=2&ids%5B%5D=4&ids%5B%5D=8":
                return .json(#"[{"id": 1, "name": "Ada"}]"#)
            case ("GET", "/auth"): return .json(#"{"token": "fresh"}"#)
            case ("POST", "/users"): return MockResponse(status: 201, headers: [("Location", "/users/2")])
            case ("POST", "/payments"): return .json(#"{"ok": true}"#, status: 201)
            case (_, "/path") where request.header("Authorization") == "let me in": return .json(#"{"ok": true}"#)
            case (_, "/path"): return .status(401)
            case (_, "/me"):
                let authorized =
                    request.header("Authorization") == "Bearer fresh" || request.header("X-Authorization") == "fresh"
                return authorized ? .json(#"{"id": 2}"#) : .status(401)
            default: return .status(404)
            }
        }
        return server
    }

    @Test("The command-line script waits for its handlers before it goes on")
    func scriptWaits() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        // On a thread of its own, as a script's main thread: the semaphore must not block the test's pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                commandLineScript(api: api)
                continuation.resume()
            }.start()
        }
        #expect(server.requests.map(\.path) == ["/users/1"])
    }

    @Test("The main-actor model sets its name from a handler")
    @MainActor func mainActorModelRuns() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let model = UserModel()
        model.load(from: api)
        #expect(await eventually { !model.name.isEmpty })
        #expect(model.name == "Ada")
    }

    @Test("The query and validation sample sends the query in order and decodes")
    func queryAndValidationRuns() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await queryAndValidation(api: api).map(\.name) == ["Ada"])
    }

    @Test("Quick start decodes a user")
    func quickStartRuns() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        #expect(try await quickStart(baseURL: server.baseURL).name == "Ada")
    }

    @Test("The three GET forms and a status handler run")
    func getFormsRun() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        simpleGET(api: api)
        buildThenExecute(api: api)
        #expect(await eventually { server.requestCount == 2 })
        boundExecute(api: api)
        #expect(await eventually { server.requests.map(\.path).contains("/users/1") })
        statusHandler(api: api, myAuthHeaderValue: "let me in")
        #expect(await eventually { server.requests.last?.header("Authorization") == "let me in" })
        #expect(server.requests.map(\.path).filter { $0 == "/path" }.count == 4)
    }

    @Test("Both subclasses authenticate on 401 and retry", arguments: [false, true])
    func subclassesRun(recommended: Bool) async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api: SimpleNetworking =
            recommended ? MyAPI(baseURL: server.baseURL) : MyAPIManager(baseURL: server.baseURL)
        defer { api.close() }
        let log = EventLog()
        api.get("/me") { $0.on(success: { response in log.append("\(response.statusCode)") }) }
        #expect(await eventually { log.all == ["200"] })
        #expect(server.requests.map(\.path) == ["/me", "/auth", "/me"])
    }

    @Test("The async, configuration and per-request samples run")
    func asyncSamplesRun() async throws {
        let server = try makeServer()
        defer { server.shutdown() }
        let api = configuredClient(baseURL: server.baseURL)
        defer { api.close() }
        #expect(await asyncAwait(api: api) == "done")
        #expect(try await perRequestOverrides(api: api).statusCode == 201)
        #expect(server.requests.first?.header("User-Agent") == "MyApp/1.0")
        #expect(server.requests.last?.header("Idempotency-Key") != nil)
        #expect(SimpleNetworking.shared.baseURL.host == "my.api")
    }
}

// README-SAMPLE: kringle-endpoint
enum CatEndpoint {
    case cuddle
    case pet(catName: String)
    case feed(catName: String)
}

extension CatEndpoint: Endpoint {
    var baseURL: URL? { URL(string: "https://api.kringlekitty.com") }
    var path: String {
        switch self {
        case .cuddle: "/kittycuddles"
        case .pet: "/pet/{catName}/"
        case .feed: "/feed/{catName}/"
        }
    }
    var pathValues: [String: String] {
        switch self {
        case .cuddle: [:]
        case .pet(let catName), .feed(let catName): ["catName": catName]
        }
    }
}
// README-SAMPLE-END

func kringle(networkClient: SimpleNetworking) async -> String {
    // README-SAMPLE: kringle-call
    let cat = CatEndpoint.pet(catName: "Kringle")

    // This performs a GET request on https://api.kringlekitty.com/pet/Kringle/
    do {
        try await networkClient.send(cat)
        print("🐱")
    } catch {
        print("You gotta be kitten me!")
    }
    // README-SAMPLE-END
    return "done"
}

@Suite("README typed-request sample runs")
struct ReadmeTypedSampleTests {
    @Test("Kringle's endpoint with its own base URL")
    func kringleRuns() async throws {
        let transport = MockTransport()
        transport.route { _ in .status(200) }
        let base = try #require(URL(string: "https://api.kringlekitty.com"))
        let api = SimpleNetworking(baseURL: base, transport: transport)
        api.defaultHeaders["X-Cat"] = "yes"
        #expect(await kringle(networkClient: api) == "done")
        let request = try #require(transport.requests.first)
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://api.kringlekitty.com/pet/Kringle/")
        #expect(request.headers["X-Cat"] == "yes")
    }
}

struct ChatDelta: Decodable, Sendable {
    var text: String
}

struct ChatQuestion: Encodable, Sendable {
    var prompt: String
}

func streamedAnswer(api: SimpleNetworking, question: ChatQuestion) async throws -> String {
    var answer = ""
    // README-SAMPLE: event-stream
    let deltas = api.post("/chat").body(json: question).events(decoding: ChatDelta.self, until: "[DONE]")
    for try await delta in deltas {
        answer += delta.text
    }
    // README-SAMPLE-END
    return answer
}

@Suite("README event-stream sample runs")
struct ReadmeEventStreamSampleTests {
    @Test("The streamed answer is decoded event by event and stops at [DONE], without reconnecting")
    func streamedAnswerRuns() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .eventStream([
                .event(data: #"{"text": "Hel"}"#), .event(data: #"{"text": "lo"}"#), .event(data: "[DONE]"),
                .event(data: #"{"text": "never read"}"#),
            ])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        #expect(try await streamedAnswer(api: api, question: ChatQuestion(prompt: "Hi")) == "Hello")
        #expect(server.requests.map(\.method) == ["POST"])
        #expect(server.requests.first?.bodyText == #"{"prompt":"Hi"}"#)
    }
}
