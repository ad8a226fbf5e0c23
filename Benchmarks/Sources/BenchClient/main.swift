import Dispatch
import Foundation

// One client of the benchmark in a process of its own, so that its CPU time and memory are its own.
//
//     bench-client CLIENT PORT PHASE...
//
// The `-tls-` clients send HTTPS to PORT and trust the CA whose PEM file BENCH_TLS_CA names. New connections are
// counted by asking the server on BENCH_STATUS_PORT when it is set, else on PORT.
//
// Phases, run in order, each printing one line of `key=value` figures:
//   seq N        N requests one after another, from a cold client: req/s, CPU per request, new connections
//   conc N C     N requests, C at a time: req/s, CPU per request, new connections, RSS after 10k and after N, peak RSS
//   count N      N requests one after another and nothing else, for valgrind (instructions and allocations): the
//                runner takes the difference between two counts, so start-up and warm-up cancel out
//   download N   GET /large/N (N MiB) streamed to a file: seconds, MB/s, peak RSS above the start (library-ahc,
//                ahc-raw)
//   upload N     a file of N MiB sent as a PUT body, read from disk as it goes: seconds, peak RSS above the start
//                (library-ahc)
//   bomb N       GET /gzip (a compression bomb) with the default 10 MiB limit, N times: seconds to the error, peak RSS
//                above the start, and RSS above the start 1 s after the last error (library-ahc, library-response)
//   wait N       GET /delay/N (the server answers after N seconds): seconds, and the CPU seconds the process used
//                meanwhile (library clients)
//   events-chunks N, events-bytes N, events-parse N, events-mattt N
//                GET /events/N (N MiB of text/event-stream) through the library's response stream, read with
//                chunks() or bytes() alone, parsed by the library's parser or by mattt/EventSource's (EventStreams
//                .swift): seconds, MiB/s, events and events per second, RSS before and after each tenth, peak RSS
//                above the start (library-ahc, library-response)
//
// `main` is synchronous, blocking on a semaphore around a detached task: valgrind cannot run an async top-level main.

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, let port = Int(arguments[1]),
    let url = URL(string: "\(arguments[0].contains("-tls-") ? "https" : "http")://127.0.0.1:\(port)/json"),
    let client = makeClient(named: arguments[0], url: url)
else {
    print("usage: bench-client CLIENT PORT PHASE...")
    exit(2)
}
/// The port of the server's count of accepted connections.
let statusPort = ProcessInfo.processInfo.environment["BENCH_STATUS_PORT"].flatMap { Int($0) } ?? port

/// Runs `count` requests, `concurrency` at a time; fails the process on the first error.
func run(_ count: Int, concurrency: Int = 1) async {
    do {
        if concurrency == 1 {
            for _ in 0..<count { _ = try await client.fetch() }
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let share = count / concurrency + (worker < count % concurrency ? 1 : 0)
                group.addTask { for _ in 0..<share { _ = try await client.fetch() } }
            }
            try await group.waitForAll()
        }
    } catch {
        print("bench-client: request failed: \(error)")
        exit(1)
    }
}

func format(_ value: Double) -> String { String(format: "%.1f", value) }

func phases() async {
    var rest = arguments.dropFirst(2)
    while let phase = rest.popFirst() {
        let count = rest.popFirst().flatMap { Int($0) } ?? 0
        switch phase {
        case "seq":
            let accepted = acceptedConnections(port: statusPort)
            let (start, cpu) = (Date(), cpuSeconds())
            await run(count)
            let (elapsed, used) = (Date().timeIntervalSince(start), cpuSeconds() - cpu)
            let connections = acceptedConnections(port: statusPort) - accepted - 1
            print(
                "seq rps=\(format(Double(count) / elapsed)) cpu_us=\(format(used / Double(count) * 1e6))"
                    + " conns=\(connections)")
        case "conc":
            let concurrency = rest.popFirst().flatMap { Int($0) } ?? 64
            let first = min(count, 10_000)
            let accepted = acceptedConnections(port: statusPort)
            let (start, cpu) = (Date(), cpuSeconds())
            await run(first, concurrency: concurrency)
            let rss10k = memoryMB("VmRSS")
            await run(count - first, concurrency: concurrency)
            let (elapsed, used) = (Date().timeIntervalSince(start), cpuSeconds() - cpu)
            let connections = acceptedConnections(port: statusPort) - accepted - 1
            print(
                "conc rps=\(format(Double(count) / elapsed)) cpu_us=\(format(used / Double(count) * 1e6))"
                    + " conns=\(connections) rss10k=\(format(rss10k)) rssEnd=\(format(memoryMB("VmRSS")))"
                    + " hwm=\(format(memoryMB("VmHWM")))")
        case "count":
            await run(count)
        case "bomb":
            guard let library = client as? LibraryClient else {
                print("bench-client: \(arguments[0]) has no bomb phase")
                exit(2)
            }
            let base = memoryMB("VmRSS")
            var seconds: [String] = []
            for _ in 0..<max(1, count) {
                let start = Date()
                guard let outcome = await library.fetchBomb(port: port), outcome.contains("size limit") else {
                    print("bench-client: the bomb did not fail with the size limit")
                    exit(1)
                }
                seconds.append(String(format: "%.3f", Date().timeIntervalSince(start)))
            }
            let peak = memoryMB("VmHWM") - base
            try? await Task.sleep(nanoseconds: 1_000_000_000)
            print(
                "bomb seconds=\(seconds.joined(separator: ",")) peak_above_start_mb=\(format(peak))"
                    + " rss_after_1s_above_start_mb=\(format(memoryMB("VmRSS") - base))")
        case "wait":
            guard let library = client as? LibraryClient else {
                print("bench-client: \(arguments[0]) has no wait phase")
                exit(2)
            }
            let (start, cpu) = (Date(), cpuSeconds())
            guard await library.fetchDelayed(seconds: count) else {
                print("bench-client: the delayed request failed")
                exit(1)
            }
            print(
                "wait seconds=\(String(format: "%.2f", Date().timeIntervalSince(start)))"
                    + " cpu_seconds=\(String(format: "%.2f", cpuSeconds() - cpu))")
        case let name where EventStreamReading(rawValue: name) != nil:
            guard let library = client as? LibraryClient, let reading = EventStreamReading(rawValue: name) else {
                print("bench-client: \(arguments[0]) has no \(phase) phase")
                exit(2)
            }
            do {
                print(try await library.readEventStream(mebibytes: count, port: port, as: reading).line(reading))
            } catch {
                print("bench-client: \(phase) failed: \(error)")
                exit(1)
            }
        case "download", "upload":
            guard let transfers = client as? any FileTransfers else {
                print("bench-client: \(arguments[0]) has no \(phase) phase")
                exit(2)
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            if phase == "upload" { writeZeros(count << 20, to: file) }
            let base = memoryMB("VmRSS")
            let start = Date()
            do {
                if phase == "download" {
                    try await transfers.download(mebibytes: count, port: port, to: file)
                } else {
                    try await transfers.upload(file, port: port)
                }
            } catch {
                print("bench-client: \(phase) failed: \(error)")
                exit(1)
            }
            let elapsed = Date().timeIntervalSince(start)
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
            guard size == count << 20 else {
                print("bench-client: the file has \(size ?? -1) bytes, not \(count << 20)")
                exit(1)
            }
            print(
                "\(phase) seconds=\(String(format: "%.3f", elapsed)) mbps=\(format(Double(count) / elapsed))"
                    + " peak_above_start_mb=\(format(memoryMB("VmHWM") - base))")
        default:
            print("bench-client: unknown phase \(phase)")
            exit(2)
        }
    }
    await client.close()
}

let done = DispatchSemaphore(value: 0)
Task.detached {
    await phases()
    done.signal()
}
done.wait()
exit(0)
