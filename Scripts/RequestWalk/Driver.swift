import Foundation
import SimpleNetworking
import SimpleNetworkingTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The request-walk driver (Scripts/request-walk builds and runs it): one form of request, once to warm up and once
// traced, against a MockServer in a child process of its own (`serve`), so that only the client's functions are
// recorded. The client, its server and its endpoint are the demo's (Sources/SimpleNetworkingDemo/DemoAPI.swift): the
// README's re-authenticating subclass.
//
//   walk-driver <form 1-4> <trace file>     forms as in Scripts/request-walk
//   walk-driver serve                       prints the server's port, serves until standard input closes

/// Serves on loopback until standard input reaches its end (the driver closes it, or exits).
func serve() throws {
    let server = try makeDemoServer()
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    var byte: UInt8 = 0
    while read(0, &byte, 1) > 0 {}
    server.shutdown()
}

/// Starts `serve` in a child process; returns it and the port it serves on.
func startServer() throws -> (Process, Int) {
    let child = Process()
    child.executableURL = URL(
        fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
    child.arguments = ["serve"]
    let output = Pipe()
    child.standardOutput = output
    child.standardInput = Pipe()
    try child.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        guard !chunk.isEmpty else { break }
        line.append(chunk)
    }
    guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw CocoaError(.fileReadCorruptFile)
    }
    return (child, port)
}

/// One request of the given form, awaited until the caller has its answer.
func run(form: Int, on api: DemoAPI) async throws {
    switch form {
    case 1, 2:
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            api.get(form == 1 ? "/users/1" : "/me") { $0.on(success: { _ in done.resume() }) }
        }
    case 3: _ = try await api.get("/users/1").decode(User.self)
    default: _ = try await api.send(UserEndpoint.user(id: 1))
    }
}

@main
struct RequestWalk {
    static func main() async throws {
        let arguments = CommandLine.arguments
        if arguments.count == 2, arguments[1] == "serve" { return try serve() }
        guard arguments.count == 3, let form = Int(arguments[1]), (1...4).contains(form) else {
            FileHandle.standardError.write(Data("usage: walk-driver <form 1-4> <trace file> | serve\n".utf8))
            exit(2)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            FileHandle.standardError.write(Data("walk-driver: no answer within 60 s\n".utf8))
            exit(3)
        }
        let (server, port) = try startServer()
        let api = DemoAPI(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
        try await run(form: form, on: api)  // the warm-up
        api.defaultHeaders["Authorization"] = nil  // form 2 meets its 401 again
        let settle = Double(ProcessInfo.processInfo.environment["WALK_SETTLE"] ?? "") ?? 0.25
        walk_trace_start()
        try await run(form: form, on: api)
        walk_trace_mark()  // the caller has its answer; what follows until the stop is the request winding down
        try await Task.sleep(nanoseconds: UInt64(settle * 1e9))
        walk_trace_stop()
        guard walk_trace_dump(arguments[2]) >= 0 else { exit(4) }
        api.close()
        server.terminate()
        server.waitUntilExit()
    }
}
