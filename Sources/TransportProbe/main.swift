import Foundation
import SimpleNetworking
import SimpleNetworkingTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// transport-probe: runs one scenario against an in-process MockServer and prints what the unit tests cannot assert
// reliably while other suites run in parallel: elapsed time, peak and current RSS (VmHWM, VmRSS from
// /proc/self/status) and open descriptors (/proc/self/fd). One scenario per process, so the figures are its own.
//
//   swift build -c release --product transport-probe
//   .build/release/transport-probe <scenario> [arguments]
//
// Scenarios (<doc:SecurityDefaults>, <doc:LinuxPlatformNotes> and <doc:LargeTransfers> quote their figures):
//   timeout-headers [lines=20000] [timeout=1]   .timeout against a response with that many header lines
//   cancel-headers [lines=20000] [after=0.2]    cancelling while those header lines are parsed
//   interference                                a quiet client's requests while another client's are parsed
//   timeout-bomb [timeout=1]                    .timeout against 1 GiB of gzip zeros, size limit lifted
//   close [clients=1000]                        clients that each do one request, then close()
//   release [clients=1000]                      the same, released without close()
//   sequential [count=100000] [timeout=60]      sequential requests on one client, RSS at checkpoints (the server
//                                               runs in a child process, `serve`, so that only the client counts)
//   bomb-cap [limit=10485760] [watch=8]         1 GiB of gzip zeros (1 MB on the wire) against the size limit,
//                                               then RSS for `watch` seconds while the platform winds down
//   endless [limit=10485760] [watch=8]          an endless chunked body against the size limit
//   download [megabytes=256]                    throughput of a large plain body
//   headers [count=100000]                      converts a 16-field HTTPURLResponse into HTTPHeaders count times
//   download-file [megabytes=1024] [rounds=3]   download(to:) of a plain body, alternating with a raw URLSession
//                                               download task writing the same file: the peak RSS of the first
//                                               download (before any raw one), each time, and the best of each
//   upload-file [megabytes=1024]                body(fileAt:) of a file that size to a server in a child process
//                                               (`discard`, which counts the bytes and throws them away)
//   cookie-flood [fields=10000]                 one response with that many Set-Cookie fields, then one more
//                                               request: what the client's cookie jar kept and sent
//   waiting [seconds=5] [requests=1]            the CPU time the process spends while that many requests wait that
//                                               long for the server's answer: through the library, then one plain
//                                               URLSession data task
//   trailers | trailers-plain                   a chunked body followed by a trailer field, through the library or a
//                                               plain URLSession data task: FoundationNetworking ends the process
//   close-connections [requests=4] [watch=5]    that many requests under way at once on one client (a connection
//                                               each), then close() with the client still held: its TCP
//                                               connections to the server and the process's sockets, polled for
//                                               `watch` seconds until they are gone
//   held-pool [megabytes=32] [rounds=5]         bodies that large, one after another, through the library while
//                                               every thread of Swift's cooperative pool keeps calling a plain
//                                               URLSession's `data(for:)`, which waits for FoundationNetworking's
//                                               work queue: the longest wait of a new task for a thread meanwhile

/// Kilobytes of the named line in /proc/self/status, e.g. `VmHWM`.
func status(_ key: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// Open descriptors, not counting the one used to list them.
func openDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 0) - 1
}

/// The inodes of the sockets among the process's open descriptors.
func socketInodes() -> Set<String> {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    var inodes = Set<String>()
    for name in names {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
            target.hasPrefix("socket:[")
        else { continue }
        inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
    }
    return inodes
}

/// This process's TCP sockets connected to `port` (clients of a server on that port), from /proc/self/net/tcp and
/// tcp6: an entry whose remote port is `port` and whose inode is one of the process's descriptors. A connection in
/// TIME_WAIT has no descriptor (inode 0), so one the process has closed is not counted.
func connections(toPort port: Int) -> Int {
    let inodes = socketInodes()
    var count = 0
    for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
        // Read to its end: procfs gives no size, and a whole-file read may stop after the first page.
        guard let data = FileHandle(forReadingAtPath: table)?.readDataToEndOfFile() else { continue }
        let text = String(decoding: data, as: UTF8.self)
        for line in text.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
            let fields = line.split(separator: " ")
            guard fields.count > 9, let remotePort = fields[2].split(separator: ":").last,
                Int(remotePort, radix: 16) == port, inodes.contains(String(fields[9]))
            else { continue }
            count += 1
        }
    }
    return count
}

/// CPU seconds the process has used, user and system.
func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

func megabytes(_ kilobytes: Int) -> String { String(format: "%.1f MB", Double(kilobytes) / 1024) }

func report(_ label: String, _ value: String) { print("\(label): \(value)") }

/// Reports what went wrong on standard error and exits with status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("transport-probe: \(message)\n".utf8))
    exit(1)
}

func memory(_ label: String) {
    report(label, "VmRSS \(megabytes(status("VmRSS"))), VmHWM \(megabytes(status("VmHWM"))), fds \(openDescriptors())")
}

/// Runs `body` and returns its outcome in a word (`status 200`, `timedOut`, `cancelled`, `responseTooLarge`,
/// `transportFailed(-1011)`, ...) and the seconds it took.
func timed(_ body: @Sendable () async throws(SimpleNetworkingError) -> SimpleResponse) async -> (String, TimeInterval) {
    let start = Date()
    do {
        let response = try await body()
        return ("status \(response.statusCode)", Date().timeIntervalSince(start))
    } catch {
        let elapsed = Date().timeIntervalSince(start)
        switch error {
        case .transportFailed(let failure, _) where failure.category == .timedOut: return ("timedOut", elapsed)
        case .transportFailed(let failure, _): return ("transportFailed(\(failure.category))", elapsed)
        case .cancelled: return ("cancelled", elapsed)
        case .responseTooLarge: return ("responseTooLarge", elapsed)
        default: return ("\(error)", elapsed)
        }
    }
}

func client(_ server: MockServer, limit: Int = 10 * 1024 * 1024, timeout: TimeInterval = 60) -> SimpleNetworking {
    client(server.baseURL, limit: limit, timeout: timeout)
}

func client(_ baseURL: URL, limit: Int = 10 * 1024 * 1024, timeout: TimeInterval = 60) -> SimpleNetworking {
    var configuration = SimpleNetworking.Configuration()
    configuration.retryPolicy = .never
    configuration.maximumResponseBodySize = limit
    configuration.timeout = timeout
    return SimpleNetworking(baseURL: baseURL, configuration: configuration)
}

func argument(_ index: Int, default value: Int) -> Int {
    CommandLine.arguments.count > index ? Int(CommandLine.arguments[index]) ?? value : value
}

func argument(_ index: Int, default value: Double) -> Double {
    CommandLine.arguments.count > index ? Double(CommandLine.arguments[index]) ?? value : value
}

/// Runs this executable again with `scenario`, a server that prints its URL and serves until its standard input
/// closes, so that only the client counts in this process's figures.
/// - Returns: The process, the pipe whose closing stops it, and its URL.
func startServerProcess(_ scenario: String) throws -> (Process, Pipe, URL) {
    let serve = Process()
    serve.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    serve.arguments = [scenario]
    let serverOutput = Pipe()
    let serverInput = Pipe()
    serve.standardOutput = serverOutput
    serve.standardInput = serverInput
    try serve.run()
    var line = Data()
    while !line.contains(0x0A) {
        let chunk = serverOutput.fileHandleForReading.availableData
        guard !chunk.isEmpty else { break }
        line.append(chunk)
    }
    let printed = String(decoding: line, as: UTF8.self).split(separator: "\n").last { $0.hasPrefix("http") }
    guard let printed, let serverURL = URL(string: String(printed)) else { fail("no URL from the server process") }
    return (serve, serverInput, serverURL)
}

let server = try MockServer()
let scenario = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ""
memory("baseline")
let baseline = status("VmHWM")

switch scenario {
case "timeout-headers", "cancel-headers":
    // Short header lines keep FoundationNetworking's header parsing busy on the work queue that every URLSession of
    // the process shares (about 3.7 s for 20,000 lines on a 2-core machine).
    let lines = argument(2, default: 20_000)
    let seconds = argument(3, default: 1.0)
    let headers = (0..<lines).map { (name: "X-\($0)", value: "v") }
    server.route { _ in MockResponse(headers: headers, body: Data("ok".utf8)) }
    let api = client(server)
    if scenario == "timeout-headers" {
        let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
            try await api.get("/headers").timeout(seconds).response()
        }
        report("outcome", outcome)
        report("elapsed-seconds", String(format: "%.3f", elapsed))
        report("setting", String(format: "timeout %.2f s, %d header lines", seconds, lines))
    } else {
        // Cancels `seconds` after the server has read the request, while the headers are being parsed.
        let task = Task { try await api.get("/headers").response() }
        while server.requestCount == 0 { try? await Task.sleep(nanoseconds: 5_000_000) }
        try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
            task.cancel()
            switch await task.result {
            case .success(let response): return response
            case .failure(let error): throw error as? SimpleNetworkingError ?? .cancelled
            }
        }
        report("outcome", outcome)
        report("elapsed-seconds", String(format: "%.3f", elapsed))
        report("setting", String(format: "cancelled %.2f s into %d header lines", seconds, lines))
    }
    // Exits at once: the transfer left behind would keep this process busy for seconds.
    exit(0)

case "interference":
    // A busy client (header parsing) next to a quiet one: how long the quiet one's small requests take meanwhile.
    let busy = try MockServer()
    let headers = (0..<20_000).map { (name: "X-\($0)", value: "v") }
    busy.route { _ in MockResponse(headers: headers, body: Data("ok".utf8)) }
    server.route { _ in .text("ok") }
    let busyClient = client(busy)
    let quiet = client(server)
    let start = Date()
    let busyTask = Task {
        await timed { () async throws(SimpleNetworkingError) in try await busyClient.get("/busy").timeout(1).response()
        }
    }
    for _ in 0..<30 {
        let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
            try await quiet.get("/q").response()
        }
        report(
            String(format: "quiet at %.2f s", Date().timeIntervalSince(start)),
            String(format: "%.3f s, %@", elapsed, outcome))
        try? await Task.sleep(nanoseconds: 100_000_000)
    }
    let (busyOutcome, busyElapsed) = await busyTask.value
    report("busy", String(format: "%.3f s, %@", busyElapsed, busyOutcome))
    busyClient.close()
    quiet.close()
    busy.shutdown()

case "timeout-bomb":
    let timeout = argument(2, default: 1.0)
    let bomb = DynamicGzipBomb.make(decodedSize: 1 << 30)
    server.route { _ in MockResponse(headers: [("Content-Encoding", "gzip")], body: bomb) }
    let api = client(server, limit: .max)
    let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
        try await api.get("/bomb").timeout(timeout).response()
    }
    report("outcome", outcome)
    report("elapsed-seconds", String(format: "%.3f", elapsed))
    report("setting", String(format: "timeout %.2f s, %d bytes on the wire", timeout, bomb.count))
    api.close()

case "close", "release":
    let clients = argument(2, default: 1_000)
    server.route { _ in .text("ok") }
    let before = openDescriptors()
    let start = Date()
    for _ in 0..<clients {
        let api = client(server)
        _ = try? await api.get("/one").response()
        if scenario == "close" { api.close() }
    }
    report("requests", String(format: "%d clients in %.1f s", clients, Date().timeIntervalSince(start)))
    report("descriptors", "\(before) before, \(openDescriptors()) just after")
    for wait in [1, 5] {
        try? await Task.sleep(nanoseconds: UInt64(wait) * 1_000_000_000)
        report("descriptors after \(wait) s more", "\(openDescriptors())")
    }
    memory("end")

case "serve":
    // The server of `sequential`, in a process of its own: MockServer keeps every request it has read, which would
    // otherwise count in the client's RSS. Prints its URL, then serves until its standard input closes.
    server.route { _ in .text("ok") }
    print(server.baseURL.absoluteString)
    fflush(nil)  // every output stream: the parent waits for this line
    _ = FileHandle.standardInput.readDataToEndOfFile()
    server.shutdown()
    exit(0)

case "sequential", "sequential-raw":
    let count = argument(2, default: 100_000)
    let timeout = argument(3, default: 60.0)
    let (serve, serverInput, serverURL) = try startServerProcess("serve")
    let api = client(serverURL, timeout: timeout)
    // sequential-raw: the same requests on a plain ephemeral URLSession, for what FoundationNetworking itself keeps.
    let raw = URLSession(configuration: .ephemeral)
    let rawURL = serverURL.appendingPathComponent("n")
    let checkpoints: Set<Int> = [1_000, 10_000, 20_000, 50_000, 100_000, count]
    let start = Date()
    for number in 1...max(1, count) {
        if scenario == "sequential-raw" {
            _ = try? await raw.data(from: rawURL)
        } else {
            _ = try? await api.get("/n").response()
        }
        if checkpoints.contains(number) {
            memory(String(format: "after %d requests (%.0f s)", number, Date().timeIntervalSince(start)))
        }
    }
    api.close()
    try serverInput.fileHandleForWriting.close()
    serve.waitUntilExit()

case "bomb-cap", "endless":
    let limit = argument(2, default: 10 * 1024 * 1024)
    if scenario == "bomb-cap" {
        let bomb = DynamicGzipBomb.make(decodedSize: 1 << 30)
        report("bomb", "\(bomb.count) bytes on the wire, 1 GiB decoded")
        server.route { _ in MockResponse(headers: [("Content-Encoding", "gzip")], body: bomb) }
    } else {
        let chunk = Data(repeating: 0x61, count: 64 * 1024)
        server.route { _ in MockResponse(body: chunk, chunked: true, faults: [.repeatBody(.max)]) }
    }
    memory("before the request")
    let before = status("VmHWM")
    let api = client(server, limit: limit)
    let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
        try await api.get("/big").response()
    }
    report("outcome", outcome)
    report("elapsed-seconds", String(format: "%.3f", elapsed))
    memory("at the error")
    // What the platform still does after the caller has its error: decoding, queueing, cancelling.
    let window = argument(3, default: 8.0)
    var waited = 0.0
    for wait in [0.5, 0.5, 1, 2, 4] where waited + wait <= window {
        try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
        waited += wait
        memory(String(format: "%.1f s later", waited))
    }
    report("peak above baseline", megabytes(status("VmHWM") - before))
    api.close()

case "download":
    // Throughput of a large plain body, to check that holding libcurl back costs nothing when the delegate keeps up.
    let megabytes = argument(2, default: 256)
    let chunk = Data(repeating: 0x61, count: 1024 * 1024)
    server.route { _ in MockResponse(body: chunk, faults: [.repeatBody(megabytes)]) }
    let api = client(server, limit: .max)
    let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
        try await api.get("/download").response()
    }
    report("outcome", outcome)
    report("elapsed-seconds", String(format: "%.3f", elapsed))
    report("throughput", String(format: "%.0f MB/s", Double(megabytes) / elapsed))
    api.close()

case "headers":
    let count = argument(2, default: 100_000)
    var fields: [String: String] = [:]
    for index in 0..<16 { fields["X-Header-\(index)"] = "value \(index)" }
    guard let url = URL(string: "http://127.0.0.1/"),
        let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
    else { fail("cannot build a response") }
    var total = 0
    let start = Date()
    for _ in 0..<count { total += HTTPHeaders(response).count }
    let elapsed = Date().timeIntervalSince(start)
    report("conversions", "\(count), \(total) fields")
    report("time per conversion", String(format: "%.2f µs", elapsed / Double(max(1, count)) * 1e6))

case "download-file":
    let mebibytes = argument(2, default: 1024)
    let rounds = max(1, argument(3, default: 3))
    let chunk = Data(repeating: 0x61, count: 1024 * 1024)
    server.route { _ in MockResponse(body: chunk, faults: [.repeatBody(mebibytes)]) }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("probe-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let api = client(server, limit: .max, timeout: 3600)
    let raw = URLSession(configuration: .ephemeral)
    let file = directory.appendingPathComponent("body.bin")
    let expected = mebibytes * 1024 * 1024
    func size() -> Int {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)??.intValue ?? -1
    }
    var libraryTimes: [TimeInterval] = []
    var rawTimes: [TimeInterval] = []
    // The library first, alternating with a raw URLSession download task (which writes the body to a file of its
    // own), so that the peak is the library's own and a busy moment of the machine hits both alike.
    for round in 1...rounds {
        memory("round \(round), before the download")
        let before = status("VmHWM")
        let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
            try await api.get("/download").download(to: file)
        }
        if round == 1 { report("peak above the start of the first download", megabytes(status("VmHWM") - before)) }
        report(
            "round \(round), library",
            String(format: "%@, %.2f s, %.0f MB/s, %d bytes", outcome, elapsed, Double(mebibytes) / elapsed, size()))
        libraryTimes.append(elapsed)
        try? FileManager.default.removeItem(at: file)
        let rawStart = Date()
        let moved: Bool = await withCheckedContinuation { continuation in
            raw.downloadTask(with: server.url("/download")) { location, _, _ in
                guard let location else { return continuation.resume(returning: false) }
                continuation.resume(returning: (try? FileManager.default.moveItem(at: location, to: file)) != nil)
            }.resume()
        }
        let rawElapsed = Date().timeIntervalSince(rawStart)
        report(
            "round \(round), raw URLSession download task",
            String(
                format: "%.2f s, %.0f MB/s, %d bytes%@", rawElapsed, Double(mebibytes) / rawElapsed, size(),
                moved ? "" : " (failed)"))
        rawTimes.append(rawElapsed)
        try? FileManager.default.removeItem(at: file)
    }
    let best = (libraryTimes.min() ?? 0, rawTimes.min() ?? 0)
    report("expected size", "\(expected) bytes")
    report("best library / best raw time", String(format: "%.2f s / %.2f s = %.2f", best.0, best.1, best.0 / best.1))
    api.close()
    raw.invalidateAndCancel()

case "discard":
    // The server of `upload-file`, in a process of its own: reads one request at a time, counts its body and throws
    // it away, answers with the count. Prints its URL, then serves until its standard input closes.
    let discard = try DiscardServer()
    print("http://127.0.0.1:\(discard.port)")
    fflush(nil)
    discard.start()
    _ = FileHandle.standardInput.readDataToEndOfFile()
    exit(0)

case "upload-file":
    let mebibytes = argument(2, default: 1024)
    let (serve, serverInput, serverURL) = try startServerProcess("discard")
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("probe-upload-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    guard FileManager.default.createFile(atPath: file.path, contents: nil),
        let output = try? FileHandle(forWritingTo: file)
    else { fail("cannot create \(file.path)") }
    let piece = Data(repeating: 0x62, count: 1024 * 1024)
    for _ in 0..<mebibytes { try output.write(contentsOf: piece) }
    try output.close()
    let api = client(serverURL, timeout: 3600)
    memory("before the upload")
    let before = status("VmHWM")
    let received = Locked("")
    let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
        let response = try await api.put("/upload").body(fileAt: file).response()
        received.set(response.string ?? "")
        return response
    }
    memory("after the upload")
    report("outcome", outcome)
    report("bytes the server received", "\(received.current) (file: \(mebibytes * 1024 * 1024))")
    report("peak above the start of the upload", megabytes(status("VmHWM") - before))
    report("library", String(format: "%.2f s, %.0f MB/s", elapsed, Double(mebibytes) / elapsed))
    api.close()
    try serverInput.fileHandleForWriting.close()
    serve.waitUntilExit()

case "cookie-flood":
    let count = argument(2, default: 10_000)
    // Short fields: libcurl refuses a response whose header lines pass 300 KB in all. The `;` ends each cookie's
    // pair, so URLSession's joined value splits back into one cookie per field (<doc:Cookies>).
    let fields = (0..<count).map { (name: "Set-Cookie", value: "c\($0)=1;") }
    server.route { $0.path == "/flood" ? MockResponse(status: 200, headers: fields) : .text("ok") }
    let api = client(server)
    let (outcome, elapsed) = await timed { () async throws(SimpleNetworkingError) in
        try await api.get("/flood").response()
    }
    _ = await timed { () async throws(SimpleNetworkingError) in try await api.get("/next").response() }
    let sent = server.requests.last?.httpHeaders["Cookie"] ?? ""
    report("outcome", outcome)
    report("elapsed-seconds", String(format: "%.3f", elapsed))
    report("jar-cookies", "\(api.cookieJar?.cookies.count ?? -1)")
    report("jar-limit-per-domain", "\(api.cookieJar?.maximumCookiesPerDomain ?? -1)")
    report("cookies-sent", "\(sent.isEmpty ? 0 : sent.components(separatedBy: "; ").count)")
    report("peak-rss-kb", "\(status("VmHWM"))")
    api.close()

case "waiting":
    // The server holds its answer; the process should sleep meanwhile. MockServer waits in 10 ms sleeps, which
    // cost next to nothing.
    let seconds = argument(2, default: 5.0)
    let requests = argument(3, default: 1)
    server.route { _ in MockResponse(body: Data("late".utf8), faults: [.delayHeaders(seconds)]) }
    let api = client(server)
    var cpu = cpuSeconds()
    let outcomes = await withTaskGroup(of: (String, TimeInterval).self) { group in
        for _ in 0..<max(1, requests) {
            group.addTask {
                await timed { () async throws(SimpleNetworkingError) in try await api.get("/wait").response() }
            }
        }
        var outcomes: [(String, TimeInterval)] = []
        for await outcome in group { outcomes.append(outcome) }
        return outcomes
    }
    report(
        "library, \(outcomes.count) at once",
        String(
            format: "%@ after at most %.2f s, %.2f s of CPU", Set(outcomes.map(\.0)).sorted().joined(separator: ", "),
            outcomes.map(\.1).max() ?? 0, cpuSeconds() - cpu))
    api.close()
    let session = URLSession(configuration: .ephemeral)
    cpu = cpuSeconds()
    let start = Date()
    let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
        session.dataTask(with: server.url("/wait")) { _, response, _ in
            continuation.resume(returning: (response as? HTTPURLResponse)?.statusCode ?? -1)
        }.resume()
    }
    report(
        "plain URLSession",
        String(
            format: "status %d after %.2f s, %.2f s of CPU", status, Date().timeIntervalSince(start),
            cpuSeconds() - cpu))
    session.invalidateAndCancel()

case "trailers", "trailers-plain":
    // A chunked body followed by a trailer field, legal HTTP/1.1: through the library (`trailers`), or a plain
    // URLSession data task (`trailers-plain`). FoundationNetworking ends the process in both (<doc:LinuxPlatformNotes>).
    let response =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n"
        + "5\r\nhello\r\n0\r\nX-Checksum: 5d41402a\r\n\r\n"
    server.route { _ in MockResponse(faults: [.rawResponse(Data(response.utf8))]) }
    if scenario == "trailers" {
        let api = client(server)
        let (outcome, _) = await timed { () async throws(SimpleNetworkingError) in try await api.get("/t").response() }
        report("outcome", outcome)
        api.close()
    } else {
        let session = URLSession(configuration: .ephemeral)
        let body = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            session.dataTask(with: server.url("/t")) { data, _, error in
                continuation.resume(returning: error.map { "\($0)" } ?? String(decoding: data ?? Data(), as: UTF8.self))
            }.resume()
        }
        report("outcome", body)
        session.invalidateAndCancel()
    }
case "held-pool":
    let megabytes = argument(2, default: 32)
    let rounds = argument(3, default: 5)
    server.route { request in
        request.path == "/big" ? MockResponse(body: Data(count: megabytes << 20)) : .text("ok")
    }
    let api = client(server, limit: 1 << 30)
    let stop = Locked(false)
    // From a thread of its own: how long a new task waits for a thread of the pool, every 20 ms.
    let longestWait = Locked(0.0)
    let watcher = Thread {
        while !stop.current {
            let asked = Date()
            let ran = DispatchSemaphore(value: 0)
            Task { ran.signal() }
            ran.wait()
            let waited = Date().timeIntervalSince(asked)
            longestWait.withLock { $0 = max($0, waited) }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
    watcher.start()
    let holders = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
        Task {
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            var count = 0
            while !stop.current {
                _ = try? await session.data(for: URLRequest(url: server.url("/small")))
                count += 1
            }
            return count
        }
    }
    var outcomes: [String] = []
    let start = Date()
    for _ in 0..<rounds {
        let (outcome, _) = await timed { () async throws(SimpleNetworkingError) in try await api.get("/big").response()
        }
        outcomes.append(outcome)
    }
    let bodiesTime = Date().timeIntervalSince(start)
    stop.set(true)
    var plain = 0
    for holder in holders { plain += await holder.value }
    report("bodies", String(format: "%.3f s, %@", bodiesTime, Set(outcomes).sorted().joined(separator: ", ")))
    report("plain requests", "\(plain)")
    report("longest wait for a thread", String(format: "%.3f s", longestWait.current))
    api.close()

case "close-connections":
    // Each request waits half a second for its answer, so that they are under way at once, on a connection each.
    let requests = argument(2, default: 4)
    let watch = argument(3, default: 5.0)
    server.route { _ in MockResponse(body: Data("ok".utf8), faults: [.delayHeaders(0.5)]) }
    // A first client, closed, so that the baseline has what the process keeps once it has used URLSession at all
    // (one socket pair, whatever the number of sessions since). Polled for at most 5 s by the clock, not by a count of
    // polls: reading /proc takes long on a busy machine (before, a released client's connection outlived 500 polls).
    do {
        let warmUp = client(server)
        _ = try? await warmUp.get("/warm-up").response()
        warmUp.close()
    }
    let warmedUp = Date()
    while server.openConnectionCount > 0 || connections(toPort: server.port) > 0,
        Date().timeIntervalSince(warmedUp) < 5
    {
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    let before = socketInodes().count
    let api = client(server)
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<requests {
            let read = server.requestCount
            group.addTask {
                do { _ = try await api.get("/\(index)").response() } catch { fail("request \(index): \(error)") }
            }
            // The next once the server has read this one: libcurl, which waits to see whether a connection being
            // made can carry several requests at once, then sees it busy and opens another.
            for _ in 0..<500 where server.requestCount == read { try? await Task.sleep(nanoseconds: 10_000_000) }
        }
    }
    report("connections-before-close", "\(connections(toPort: server.port))")
    api.close()
    let closed = Date()
    while connections(toPort: server.port) > 0 || socketInodes().count > before,
        Date().timeIntervalSince(closed) < watch
    {
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    report("elapsed-seconds", String(format: "%.3f", Date().timeIntervalSince(closed)))
    report("connections-after-close", "\(connections(toPort: server.port))")
    report("sockets-before", "\(before)")
    report("sockets-after-close", "\(socketInodes().count)")
    withExtendedLifetime(api) {}

default:
    print(
        "usage: transport-probe timeout-headers|timeout-bomb|close|release|sequential|bomb-cap|endless|headers"
            + "|cookie-flood|download-file|upload-file|waiting|trailers|trailers-plain|close-connections")
}

report("peak RSS above the start", megabytes(status("VmHWM") - baseline))
server.shutdown()
