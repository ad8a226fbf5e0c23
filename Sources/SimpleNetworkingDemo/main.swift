import Foundation
import SimpleNetworking
import SimpleNetworkingTesting

// swift run simple-networking-demo          a transcript against an embedded loopback API (no internet)
// swift run simple-networking-demo <url> [-o file]
//                                          a quick GET: the body (pretty-printed JSON) on standard output, or
//                                          downloaded to a file with -o; status, errors and a progress bar for a
//                                          large body on standard error

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

/// Writes a line of diagnostics to standard error, so standard output carries only the body.
func diagnose(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Draws a progress bar on standard error when it is a terminal and the body is large; nothing otherwise.
final class ProgressBar: Sendable {
    /// Bodies smaller than this (or of unknown size, until they pass it) get no bar: 1 MiB.
    static let threshold: Int64 = 1024 * 1024
    private let drawn = Locked(false)
    private let enabled = isatty(STDERR_FILENO) == 1

    func show(_ progress: TransferProgress) {
        guard enabled, progress.direction == .download,
            (progress.bytesExpected ?? progress.bytesCompleted) >= Self.threshold
        else { return }
        let megabytes = String(format: "%.1f MB", Double(progress.bytesCompleted) / 1_048_576)
        var line = megabytes
        if let fraction = progress.fractionCompleted {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            line = String(format: "[%@] %3.0f%% ", bar, fraction * 100) + megabytes
        }
        drawn.set(true)
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
    }

    /// Ends the bar's line, if one was drawn.
    func finish() {
        if drawn.current { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// `simple-networking-demo <url> [-o file]`: the status and any error go to standard error; the body, pretty-printed
/// when it is JSON, to standard output, or with `-o` to a file, downloaded in bounded memory.
func runQuickGET(_ arguments: [String]) async -> Int32 {
    var output: URL?
    var rest = arguments
    if let flag = rest.firstIndex(of: "-o") {
        guard flag + 1 < rest.count else {
            diagnose("-o needs a file name")
            return 2
        }
        output = URL(fileURLWithPath: rest[flag + 1])
        rest.removeSubrange(flag...(flag + 1))
    }
    guard rest.count == 1, let argument = rest.first, let url = URL(string: argument), let scheme = url.scheme,
        let host = url.host, let base = URL(string: "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")")
    else {
        diagnose("usage: simple-networking-demo <url> [-o file]")
        return 2
    }
    let api = SimpleNetworking(baseURL: base)
    defer { api.close() }
    let bar = ProgressBar()
    let request = api.request(.get, url: url).progress { bar.show($0) }
    do {
        if let output {
            let response = try await request.download(to: output)
            bar.finish()
            let size = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? NSNumber)??.intValue
            diagnose("HTTP \(response.statusCode), \(size ?? 0) bytes written to \(output.path)")
            return 0
        }
        let response = try await request.accept(.json).response()
        bar.finish()
        diagnose("HTTP \(response.statusCode)")
        if let value = try? response.jsonValue(),
            let pretty = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])
        {
            FileHandle.standardOutput.write(pretty + Data("\n".utf8))
        } else {
            FileHandle.standardOutput.write(response.body)
        }
        return 0
    } catch {
        bar.finish()
        if let status = error.statusCode { diagnose("HTTP \(status)") }
        diagnose("\(error)")
        return 1
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if !arguments.isEmpty {
    exit(await runQuickGET(arguments))
} else {
    do {
        try await runTranscript()
    } catch {
        print("demo failed: \(error)")
        exit(1)
    }
}
