import Foundation
import SimpleNetworking
import SimpleNetworkingTesting

// swift run simple-networking-demo          a transcript against an embedded loopback API (no internet)
// swift run simple-networking-demo <url>    a quick scripted GET: status and pretty-printed JSON

/// Prints what reached the server since `seen` requests, and returns the new count.
func printWire(_ server: MockServer, since seen: Int) -> Int {
    let requests = server.requests
    for request in requests.dropFirst(seen) {
        let auth = request.header("Authorization").map { _ in "  (Authorization: <redacted>)" } ?? ""
        print("    wire: \(request.method) \(request.target)\(auth)")
    }
    return requests.count
}

func runTranscript() async throws {
    let server = try makeDemoServer()
    defer { server.shutdown() }
    let api = DemoAPI(baseURL: server.baseURL)
    defer { api.close() }
    print("SimpleNetworking demo against an embedded API at \(server.baseURL)\n")
    var seen = 0

    print("1. GET /users/1, decoded into a model")
    let user = try await api.get("/users/1").decode(User.self)
    seen = printWire(server, since: seen)
    print("    decoded: User(id: \(user.id), name: \"\(user.name)\")\n")

    print("2. GET /me without a token: a 401 handled by the subclass's execute override")
    let me = try await api.get("/me").on(
        httpStatus: 401,
        { _, _ in
            print("    status handler: 401 seen"); return true
        }
    )
    .response()
    seen = printWire(server, since: seen)
    print("    authenticated, retried: \(me.statusCode) \(me.string ?? "")")
    print("    attempts: \(me.attempts.map(\.description).joined(separator: ", "))\n")

    print("3. GET /missing: an error reaching an error handler")
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        api.get("/missing") { request in
            request
                .on(error: { error, response in
                    print("    error handler: \(error)")
                    print("    body: \(response?.string ?? "none")")
                })
                .on(completion: { done.resume() })
        }
    }
    seen = printWire(server, since: seen)

    print("\n4. A typed endpoint: UserEndpoint.user(id: 1), sent and decoded")
    let typed = try await api.send(UserEndpoint.user(id: 1))
    _ = printWire(server, since: seen)
    print("    decoded: User(id: \(typed.id), name: \"\(typed.name)\")")
}

func runQuickGET(_ argument: String) async -> Int32 {
    guard let url = URL(string: argument), let scheme = url.scheme, let host = url.host,
        let base = URL(string: "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")")
    else {
        print("Not a URL: \(argument)")
        return 2
    }
    let api = SimpleNetworking(baseURL: base)
    defer { api.close() }
    do {
        let response = try await api.request(.get, url: url).accept(.json).response()
        print("HTTP \(response.statusCode)")
        if let value = try? response.jsonValue(),
            let pretty = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])
        {
            print(String(decoding: pretty, as: UTF8.self))
        } else {
            print(response.string ?? "<\(response.body.count) bytes>")
        }
        return 0
    } catch {
        if let status = error.statusCode { print("HTTP \(status)") }
        print(error)
        return 1
    }
}

let arguments = CommandLine.arguments.dropFirst()
if let argument = arguments.first {
    exit(await runQuickGET(argument))
} else {
    do {
        try await runTranscript()
    } catch {
        print("demo failed: \(error)")
        exit(1)
    }
}
