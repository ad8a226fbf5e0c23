import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// Every Swift sample in README.md is a region of this file between `README-SAMPLE: name` and `README-SAMPLE-END`;
// `ReadmeTests` checks that README.md shows each region verbatim, and the tests below run them against loopback.

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

func buildThenExecute(api: SimpleNetworking) {
    // README-SAMPLE: build-then-execute
    let request = SimpleNetworking.get("/path")
        .on(error: { error in print("error: \(error)") })
        .on(success: { response in print("response: \(response.json ?? [:])") })
    // ...
    request.execute(on: api)
    // README-SAMPLE-END
}

func statusHandler(api: SimpleNetworking, myAuthHeaderValue: String) {
    // README-SAMPLE: status-handler
    api.get("/path") { request in
        request.on(httpStatus: 401) { request, response in
            print("got unauthorized: \(response)")
            api.defaultHeaders["Authorization"] = myAuthHeaderValue
            request.retry(on: api)
            return false
        }
    }
    // README-SAMPLE-END
}

// README-SAMPLE: subclass-reauthentication
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
// README-SAMPLE-END

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

func configuredClient(baseURL: URL) -> SimpleNetworking {
    // README-SAMPLE: configuration
    var configuration = SimpleNetworking.Configuration()
    configuration.defaultHeaders = ["User-Agent": "MyApp/1.0"]
    configuration.timeout = 10
    configuration.retryPolicy = RetryPolicy(maximumAttempts: 4, backoff: Backoff(base: 0.2, cap: 5))
    configuration.deadline = 30
    configuration.handlerQueue = .mainActor
    let api = SimpleNetworking(baseURL: baseURL, configuration: configuration)
    // README-SAMPLE-END
    return api
}

func perRequestOverrides(api: SimpleNetworking) async throws -> SimpleResponse {
    // README-SAMPLE: per-request
    let response = try await api.post("/payments")
        .header("Idempotency-Key", UUID().uuidString)  // opts POST into automatic retries
        .body(json: ["amount": 42])
        .retryPolicy(RetryPolicy(maximumAttempts: 5))
        .timeout(2.5)
        .deadline(10)
        .response()
    print(response.attempts)  // [#1 after 0.00 s: 503, #2 after 0.31 s: 201]
    // README-SAMPLE-END
    return response
}

@Test("README: testing with MockServer")
func testingWithMockServer() async throws {
    // README-SAMPLE: mock-server
    let server = try MockServer()
    defer { server.shutdown() }
    server.enqueue(MockResponse(status: 503, headers: [("Retry-After", "0")]))
    server.enqueue(.json(#"{"id": 1, "name": "Ada"}"#))

    let api = SimpleNetworking(baseURL: server.baseURL)
    let user = try await api.get("/users/1").decode(User.self)

    #expect(user.name == "Ada")
    #expect(server.requests.map(\.path) == ["/users/1", "/users/1"])
    // README-SAMPLE-END
    api.close()
}

@Test("README: testing with MockTransport")
func testingWithMockTransport() async throws {
    // swift-format-ignore: NeverForceUnwrap
    // README-SAMPLE: mock-transport
    let transport = MockTransport()
    transport.enqueue(.failure(.cannotConnectToHost))
    transport.enqueue(.json(#"{"id": 1, "name": "Ada"}"#))

    let api = SimpleNetworking(baseURL: URL(string: "https://api.example.com")!, transport: transport)
    let user = try await api.get("/users/1").decode(User.self)

    #expect(user.id == 1)
    #expect(transport.requestCount == 2)
    // README-SAMPLE-END
}

@Test("README: MockTransport serving a MockServer's routes in memory")
func mockTransportServing() async throws {
    // README-SAMPLE: mock-transport-serving
    let server = try MockServer()
    server.route { request in .json(#"{"id": 1, "name": "Ada"}"#) }

    let api = SimpleNetworking(baseURL: server.baseURL, transport: MockTransport(serving: server))
    let user = try await api.get("/users/1").decode(User.self)

    #expect(user.name == "Ada")
    #expect(server.requests.map(\.path) == ["/users/1"])
    // README-SAMPLE-END
    server.shutdown()
}

@Suite("README samples run")
struct ReadmeSampleTests {
    private func makeServer() throws -> MockServer {
        let server = try MockServer()
        server.route { request in
            switch (request.method, request.path) {
            case ("GET", "/users/1"): return .json(#"{"id": 1, "name": "Ada"}"#)
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
        statusHandler(api: api, myAuthHeaderValue: "let me in")
        #expect(await eventually { server.requests.last?.header("Authorization") == "let me in" })
        #expect(server.requests.map(\.path) == ["/path", "/path", "/path", "/path"])
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

// MARK: - Typed requests

func namedStatuses(api: SimpleNetworking) async throws -> HTTPStatus {
    // README-SAMPLE: http-status
    let response = try await api.get("/users/1")
        .on(httpStatus: .tooManyRequests) { request, _ in
            request.retry()
            return false
        }
        .response()
    if response.status == .noContent || !response.status.isSuccess {
        print("nothing to show: \(response.statusCode)")
    }
    // README-SAMPLE-END
    return response.status
}

func pathTemplate(api: SimpleNetworking, userID: String) async throws -> User {
    // README-SAMPLE: path-template
    let user = try await api.get("/users/{id}", path: ["id": userID]).decode(User.self)
    // README-SAMPLE-END
    return user
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

// README-SAMPLE: crane-request
struct GetUserDetailsRequest: Endpoint {
    var userID: Int
    var pathValues: [String: String] { ["userID": "\(userID)"] }

    static let method: HTTPMethod = .get
    var path: String { "/users/{userID}" }

    struct Response: Decodable, Sendable {
        var name: String
        var age: Int
    }
}
// README-SAMPLE-END

// README-SAMPLE: crane-custom
struct CreateUserRequest: Endpoint {
    static let method: HTTPMethod = .post
    var path: String { "/users" }

    struct Body: Encodable, Sendable {
        var name: String
        var age: Int
    }
    var body: Body

    func configure(_ request: SimpleRequest) -> SimpleRequest {
        request.header("X-Request-Source", "crane")
    }
}
// README-SAMPLE-END

func crane(session: SimpleNetworking) async -> Int? {
    // README-SAMPLE: crane-call
    do {
        let response = try await session.send(GetUserDetailsRequest(userID: 42))
        print(response.name)
        print(response.age)
        try await session.send(CreateUserRequest(body: .init(name: "Ada", age: 36)))
        return response.age
    } catch {
        print(error)  // handle the error
        return nil
    }
    // README-SAMPLE-END
}

@Suite("README typed-request samples run")
struct ReadmeTypedSampleTests {
    @Test("Named statuses and a path template")
    func statusAndTemplate() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(MockResponse(status: 429))
        server.enqueue(.status(204))
        server.enqueue(.json(#"{"id": 7, "name": "Ada"}"#))
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        #expect(try await namedStatuses(api: api) == .noContent)
        #expect(try await pathTemplate(api: api, userID: "7/8").name == "Ada")
        #expect(server.requests.map(\.path) == ["/users/1", "/users/1", "/users/7%2F8"])
    }

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

    @Test("Crane's request types")
    func craneRuns() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch (request.method, request.path) {
            case ("GET", "/users/42"): return .json(#"{"name": "Ada", "age": 36}"#)
            case ("POST", "/users"): return .status(201)
            default: return .status(404)
            }
        }
        let session = SimpleNetworking(baseURL: server.baseURL)
        defer { session.close() }
        #expect(await crane(session: session) == 36)
        #expect(server.requests.map(\.method) == ["GET", "POST"])
        let created = try #require(server.requests.last)
        #expect(created.header("X-Request-Source") == "crane")
        #expect(String(decoding: created.body, as: UTF8.self).contains(#""name":"Ada""#))
    }
}

// MARK: - Typed forms and helpers (issue 9)

// README-SAMPLE: environment-picker
final class EnvironmentPicker: @unchecked Sendable {
    // @unchecked Sendable: `selected` is only read and written under `lock`.
    private let lock = NSLock()
    private var selected: URL

    init(_ url: URL) { selected = url }

    var baseURL: URL {
        get { lock.withLock { selected } }
        set { lock.withLock { selected = newValue } }
    }
}
// README-SAMPLE-END

func switchEnvironments(production: URL, staging: URL) async throws -> [String] {
    // README-SAMPLE: base-url-provider
    let picker = EnvironmentPicker(production)
    let api = SimpleNetworking(baseURLProvider: { picker.baseURL })
    api.defaultHeaders["Authorization"] = "Bearer token"

    let live = try await api.get("/status").response()
    picker.baseURL = staging  // the next request goes to staging, with the same headers and token
    let test = try await api.get("/status").response()
    // README-SAMPLE-END
    api.close()
    return [live.string ?? "", test.string ?? ""]
}

struct Profile: Decodable, Sendable {
    var displayName: String
}

func bodyHelpers(api: SimpleNetworking, password: String, limit: Int?) async throws -> Profile {
    // README-SAMPLE: body-helpers
    _ = try await api.post("/users")
        .body(jsonObject: ["id": "123", "name": "Kevin Malone", "manager": NSNull()])  // checked, then sent as JSON
        .response()
    _ = try await api.post("/login")
        .body(form: ["user": "ada", "password": password])  // password=...&user=ada, form-URL-encoded
        .response()

    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let profile = try await api.get("/profile")
        .query(from: ["fields": "all", "limit": limit.map(String.init)])  // a nil value is left out
        .decode(Profile.self, decoder: decoder)
    // README-SAMPLE-END
    return profile
}

func typedResults(api: SimpleNetworking, log: EventLog) {
    // README-SAMPLE: typed-results
    api.get("/users/1")
        .decoding(User.self)  // or .transform { response in try response.decode(User.self) }
        .on(success: { user in log.append("hello \(user.name)") })
        .on(error: { error in log.append("error: \(error)") })  // also what decoding threw
        .on(completion: { log.append("done") })
        .execute(on: api)
    // README-SAMPLE-END
}

// README-SAMPLE: giphy-specification
struct GIPHY: Sendable {
    var apiKey: String
    var host: URL
    var baseURL: URL { host.appendingPathComponent("v1") }

    var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    func search(_ input: Search) -> APICall<SearchResults> {
        APICall(
            .get, "gifs/search", baseURL: baseURL,
            query: [
                "api_key": apiKey, "q": input.q, "limit": input.limit?.description,
                "offset": input.offset?.description, "lang": input.lang,
            ],
            headers: ["Accept": MediaType.json.rawValue, "Content-Type": MediaType.json.rawValue], decoder: decoder)
    }

    struct Search: Sendable {
        var q: String
        var limit: Int32?
        var offset: Int?
        var lang = "en"
    }

    struct SearchResults: Decodable, Sendable {
        struct Pagination: Decodable, Sendable {
            let offset: Int32
            let totalCount: Int32
            let count: Int32
        }

        struct GIFObject: Decodable, Sendable {
            let id: String
            let title: String
            let bitlyUrl: URL?
        }

        let data: [GIFObject]
        let pagination: Pagination
    }
}
// README-SAMPLE-END

func searchGIFs(host: URL) async throws -> GIPHY.SearchResults {
    // README-SAMPLE: giphy-call
    let giphy = GIPHY(apiKey: "my-key", host: host)
    let api = SimpleNetworking(baseURL: host)
    let results = try await api.send(giphy.search(.init(q: "cats", limit: 2)))
    print(results.pagination.totalCount, results.data.map(\.title))
    // README-SAMPLE-END
    api.close()
    return results
}

@Suite("README samples of the typed forms run")
struct TypedReadmeSampleTests {
    @Test("The environment picker switches one client between two servers")
    func environmentPickerRuns() async throws {
        let production = try MockServer()
        let staging = try MockServer()
        defer { production.shutdown(); staging.shutdown() }
        production.route { _ in .text("production") }
        staging.route { _ in .text("staging") }
        let answers = try await switchEnvironments(production: production.baseURL, staging: staging.baseURL)
        #expect(answers == ["production", "staging"])
        #expect(staging.requests.first?.header("Authorization") == "Bearer token")
    }

    @Test("The body helpers send JSON, a form and a query, and decode with the request's decoder")
    func bodyHelpersRun() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.path == "/profile" ? .json(#"{"display_name": "Ada"}"#) : .status(204) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let profile = try await bodyHelpers(api: api, password: "p&ss", limit: nil)
        #expect(profile.displayName == "Ada")
        #expect(
            server.requests.map(\.bodyText).prefix(2) == [
                #"{"id":"123","manager":null,"name":"Kevin Malone"}"#, "password=p%26ss&user=ada",
            ])
        #expect(server.requests.last?.query == "fields=all")
    }

    @Test("The typed-results sample decodes a user for its success handler")
    func typedResultsRun() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"id": 1, "name": "Ada"}"#) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let log = EventLog()
        typedResults(api: api, log: log)
        #expect(await eventually { log.all.count == 2 })
        #expect(log.all == ["hello Ada", "done"])
    }

    @Test("The GIPHY specification sends its key, leaves nil out, sets shared headers and decodes snake_case")
    func giphySpecificationRuns() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            .json(
                #"{"data": [{"id": "a1", "title": "Cat", "bitly_url": "https://gph.is/x"}], "#
                    + #""pagination": {"offset": 0, "total_count": 120, "count": 1}}"#)
        }
        let results = try await searchGIFs(host: server.baseURL)
        #expect(results.pagination.totalCount == 120)
        #expect(results.data.first?.bitlyUrl?.host == "gph.is")
        let request = try #require(server.requests.first)
        #expect(request.path == "/v1/gifs/search")
        #expect(request.query == "api_key=my-key&lang=en&limit=2&q=cats")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("Content-Type") == "application/json")
    }
}

func downloadSample(api: SimpleNetworking, folder: URL) async throws -> SimpleResponse {
    // README-SAMPLE: download
    let destination = folder.appendingPathComponent("archive.zip")
    let response = try await api.get("/archive.zip")
        .progress { progress in print("\(progress.bytesCompleted) of \(progress.bytesExpected ?? -1) bytes") }
        .download(to: destination)
    print("saved to \(response.fileURL?.path ?? "")")
    // README-SAMPLE-END
    return response
}

func linesSample(api: SimpleNetworking) async throws -> [String] {
    var events: [String] = []
    // README-SAMPLE: lines
    for try await line in api.get("/events").lines() where line.hasPrefix("data: ") {
        events.append(String(line.dropFirst("data: ".count)))
    }
    // README-SAMPLE-END
    return events
}

func uploadSample(api: SimpleNetworking, archive: URL, photo: URL) async throws {
    // README-SAMPLE: upload
    _ = try await api.put("/backups/today").body(fileAt: archive).response()

    var form = MultipartFormData()
    form.append("Ada", name: "name")
    form.append(fileAt: photo, name: "photo", contentType: "image/jpeg")
    _ = try await api.post("/profile").body(multipart: form).response()
    // README-SAMPLE-END
}

func progressUpdatesSample(api: SimpleNetworking, file: URL) async throws {
    // README-SAMPLE: progress-updates
    let request = api.get("/disk.img")
    let updates = request.progressUpdates()
    let watcher = Task {
        for await update in updates { print(update.fractionCompleted.map { "\(Int($0 * 100)) %" } ?? "...") }
    }
    _ = try await request.download(to: file)
    await watcher.value  // the updates end with the request
    // README-SAMPLE-END
}

@Suite("README samples of large transfers run")
struct ReadmeTransferSampleTests {
    @Test("Download, lines, uploads and progress updates do what the README says")
    func transfers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/archive.zip", "/disk.img": return MockResponse(body: Data(repeating: 7, count: 300_000))
            case "/events": return .text("data: one\n\ndata: two\n")
            default: return .status(204)
            }
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let folder = try ScratchDirectory()
        let archive = folder.file("backup.tar")
        let photo = folder.file("photo.jpg")
        try Data("tar".utf8).write(to: archive)
        try Data("jpg".utf8).write(to: photo)

        let response = try await downloadSample(api: api, folder: folder.url)
        #expect(try Data(contentsOf: folder.file("archive.zip")).count == 300_000)
        #expect(response.fileURL == folder.file("archive.zip"))
        #expect(try await linesSample(api: api) == ["one", "two"])
        try await uploadSample(api: api, archive: archive, photo: photo)
        #expect(server.requests.first { $0.path == "/backups/today" }?.bodyText == "tar")
        #expect(server.requests.first { $0.path == "/profile" }?.multipartParts?.map(\.text) == ["Ada", "jpg"])
        try await progressUpdatesSample(api: api, file: folder.file("disk.img"))
        #expect(try Data(contentsOf: folder.file("disk.img")).count == 300_000)
    }
}

func cookieSample(baseURL: URL, cookieFile: URL) async throws -> [String] {
    // README-SAMPLE: cookies
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
    // README-SAMPLE-END
    api.close()
    return [user.name] + (api.cookieJar?.cookies.map(\.name) ?? [])
}

@Suite("README cookie sample runs")
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
