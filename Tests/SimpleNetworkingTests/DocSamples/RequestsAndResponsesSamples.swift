import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

func buildThenExecute(api: SimpleNetworking) {
    // DOC-SAMPLE: RequestsAndResponses/build-then-execute
    let request = SimpleNetworking.get("/path")
        .on(error: { error in print("error: \(error)") })
        .on(success: { response in print("response: \(response.json ?? [:])") })
    // ...
    request.execute(on: api)
    // DOC-SAMPLE-END
}

func statusHandler(api: SimpleNetworking, myAuthHeaderValue: String) {
    // DOC-SAMPLE: RequestsAndResponses/status-handler
    api.get("/path") { request in
        request.on(httpStatus: 401) { request, response in
            print("got unauthorized: \(response)")
            api.defaultHeaders["Authorization"] = myAuthHeaderValue
            request.retry(on: api)
            return false
        }
    }
    // DOC-SAMPLE-END
}

func handlersSample(api: SimpleNetworking) {
    // DOC-SAMPLE: RequestsAndResponses/handlers
    api.get("/path") { request in
        request
            .on(httpStatus: 404) { _, _ in
                print("not there")
                return false
            }
            .on(error: { error in print(error) })
            .on(success: { response in print(response.json ?? [:]) })
            .on(completion: { print("done") })
    }
    // DOC-SAMPLE-END
}

func awaitSeveral(api: SimpleNetworking) async -> Int? {
    // DOC-SAMPLE: RequestsAndResponses/await-several
    do throws(SimpleNetworkingError) {
        let user = try await api.get("/users/1").decode(User.self)
        let avatar = try await api.get("/users/\(user.id)/avatar").response()
        return avatar.body.count
    } catch .unacceptableStatus(let response) {
        print(response.statusCode)
    } catch {
        print(error)
    }
    // DOC-SAMPLE-END
    return nil
}

func awaitWithOtherErrors(api: SimpleNetworking, reportURL: URL) async {
    // DOC-SAMPLE: RequestsAndResponses/await-other-errors
    do {
        let response = try await api.get("/report").response()
        try response.body.write(to: reportURL)  // another kind of error: the block throws any Error
    } catch SimpleNetworkingError.unacceptableStatus(let response) {
        print(response.statusCode)
    } catch {
        print(error)
    }
    // DOC-SAMPLE-END
}

func awaitSample(api: SimpleNetworking) async -> Int? {
    // DOC-SAMPLE: RequestsAndResponses/await
    do {
        let user = try await api.get("/users/1").decode(User.self)
        return user.id
    } catch .unacceptableStatus(let response) {
        print(response.statusCode)
    } catch {
        print(error)  // the transport failed, the body did not decode, the task was cancelled, ...
    }
    // DOC-SAMPLE-END
    return nil
}

struct Profile: Decodable, Sendable {
    var displayName: String
}

func bodyHelpers(api: SimpleNetworking, password: String, limit: Int?) async throws -> Profile {
    // DOC-SAMPLE: RequestsAndResponses/body-helpers
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
    // DOC-SAMPLE-END
    return profile
}

// `print` stands in for Swift's own, so that the test sees the lines.
func typedResults(api: SimpleNetworking, print: @escaping @Sendable (String) -> Void) {
    // DOC-SAMPLE: RequestsAndResponses/typed-results
    api.get("/users/1")
        .decoding(User.self)  // or .transform { response in try response.decode(User.self) }
        .on(success: { user in print("hello \(user.name)") })
        .on(error: { error in print("error: \(error)") })  // also what decoding threw
        .on(completion: { print("done") })
        .execute(on: api)
    // DOC-SAMPLE-END
}

@Suite("RequestsAndResponses samples run")
struct RequestsAndResponsesSampleTests {
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
        typedResults(api: api, print: { log.append($0) })
        #expect(await eventually { log.all.count == 2 })
        #expect(log.all == ["hello Ada", "done"])
    }

    @Test("The handler chain and the awaited decode run against loopback")
    func handlersAndAwaitRun() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.path == "/users/1" ? .json(#"{"id": 3, "name": "Ada"}"#) : .status(404) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        handlersSample(api: api)
        #expect(await awaitSample(api: api) == 3)
        #expect(await eventually { server.requestCount == 2 })
        server.route { _ in .status(404) }
        #expect(await awaitSample(api: api) == nil)
    }
}
