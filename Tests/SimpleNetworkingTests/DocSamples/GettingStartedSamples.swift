import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

func configuredClient(baseURL: URL) -> SimpleNetworking {
    // DOC-SAMPLE: GettingStarted/configuration
    var configuration = SimpleNetworking.Configuration()
    configuration.defaultHeaders = ["User-Agent": "MyApp/1.0"]
    configuration.timeout = 10
    configuration.retryPolicy = RetryPolicy(maximumAttempts: 4, backoff: Backoff(base: 0.2, cap: 5))
    configuration.deadline = 30
    configuration.handlerQueue = .mainActor
    let api = SimpleNetworking(baseURL: baseURL, configuration: configuration)
    // DOC-SAMPLE-END
    return api
}

func defaultHeadersSample(api: SimpleNetworking, token: String) {
    // DOC-SAMPLE: GettingStarted/default-headers
    api.defaultHeaders["Authorization"] = "Bearer \(token)"  // merged back by name: other names are untouched
    api.updateDefaultHeaders { headers in  // read and write as one step
        let count = Int(headers["X-Session-Count"] ?? "0") ?? 0
        headers["X-Session-Count"] = String(count + 1)
    }
    // DOC-SAMPLE-END
}

// DOC-SAMPLE: GettingStarted/environment-picker
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
// DOC-SAMPLE-END

func switchEnvironments(production: URL, staging: URL) async throws -> [String] {
    // DOC-SAMPLE: GettingStarted/base-url-provider
    let picker = EnvironmentPicker(production)
    let api = SimpleNetworking(baseURLProvider: { picker.baseURL })
    api.defaultHeaders["Authorization"] = "Bearer token"

    let live = try await api.get("/status").response()
    picker.baseURL = staging  // the next request goes to staging, with the same headers and token
    let test = try await api.get("/status").response()
    // DOC-SAMPLE-END
    api.close()
    return [live.string ?? "", test.string ?? ""]
}

// DOC-SAMPLE: GettingStarted/main-actor-handlers
@MainActor final class ProfileModel {
    var name = ""
    var problem: String?

    func load(from api: SimpleNetworking) {
        api.get("/me")
            .onMainActor(success: { response in self.name = response.json?["name"] as? String ?? "" })
            .onMainActor(error: { error in self.problem = error.localizedDescription })
            .execute()
    }
}
// DOC-SAMPLE-END

@Suite("GettingStarted samples run")
struct GettingStartedSampleTests {
    @Test("The profile model takes its name, or the problem, from main-actor handlers", arguments: [200, 500])
    @MainActor func mainActorHandlersRun(status: Int) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"{"name": "Ada"}"#, status: status) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let model = ProfileModel()
        model.load(from: api)
        #expect(await eventually { !model.name.isEmpty || model.problem != nil })
        #expect(model.name == (status == 200 ? "Ada" : ""))
        #expect((model.problem?.contains("500") ?? false) == (status == 500), "\(model.problem ?? "")")
    }

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

    @Test("Default headers set in place and updated in one step go with the next request")
    func defaultHeadersRun() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        defaultHeadersSample(api: api, token: "t")
        defaultHeadersSample(api: api, token: "u")
        _ = try await api.get("/").response()
        #expect(server.requests.first?.header("Authorization") == "Bearer u")
        #expect(server.requests.first?.header("X-Session-Count") == "2")
    }
}
