import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if os(Linux)
    // transport-probe reads /proc and measures libcurl: Linux only.
    /// Timeouts and cancellation reach the caller on time while libcurl is busy.
    ///
    /// These run `transport-probe` in a process of its own: on Linux every URLSession of a process shares one work
    /// queue, so 20,000 header lines being parsed for one client hold up every other client's transfers in the same
    /// process for seconds (see "URLSession on Linux" in the documentation), and would disturb the suites running in
    /// parallel.
    @Suite("Transport while libcurl is busy (in a process of its own)")
    struct BusyTransportTests {
        @Test("A 1 s timeout reaches the caller on time while libcurl parses 20,000 header lines")
        func timeoutWhileBusy() async throws {
            let result = try await Probe.run(["timeout-headers", "20000", "1"])

            #expect(result["outcome"] == "timedOut", "\(result)")
            // Alone: 1.00 s; before the caller was resumed first, it waited for libcurl (4-7 s).
            let elapsed = try #require(result.seconds)
            #expect(elapsed > 0.95 && elapsed < (1 + 1) * timeScale, "took \(elapsed) s")
        }

        @Test("Cancelling reaches the caller at once while libcurl parses 20,000 header lines")
        func cancelWhileBusy() async throws {
            let result = try await Probe.run(["cancel-headers", "20000", "0.2"])

            #expect(result["outcome"] == "cancelled", "\(result)")
            // Alone: under 0.01 s; before, the caller waited for libcurl (4-7 s).
            let elapsed = try #require(result.seconds)
            #expect(elapsed < 1 * timeScale, "took \(elapsed) s")
        }

        @Test(
            "1 GiB of gzip zeros (1 MB on the wire) fails with responseTooLarge within 1 s under the 10 MiB limit"
        )
        func bombFailsFast() async throws {
            let result = try await Probe.run(["bomb-cap", "10485760", "0"])

            #expect(result["outcome"] == "responseTooLarge", "\(result)")
            // Alone: about 0.05 s; before the caller was resumed first, it waited for libcurl to decode (3-7 s).
            let elapsed = try #require(result.seconds)
            #expect(elapsed < 1 * timeScale, "took \(elapsed) s")
        }

        @Test("Large bodies do not stall the process's tasks while every thread of the pool waits for libcurl")
        func bodiesBesideHeldPool() async throws {
            // Five 32 MiB bodies while plain URLSession data(for:) calls keep every thread of Swift's pool waiting for
            // the work queue. Alone: a new task waited at most 0.02-0.07 s for a thread (8 runs); before the delegate
            // queue ran on the user-initiated pool, 0.9-1.0 s in every run of five bodies.
            let result = try await Probe.run(["held-pool", "32", "5"])

            #expect(result["bodies"]?.hasSuffix("status 200") == true, "\(result)")
            let wait = try #require(result["longest wait for a thread"].flatMap { Double($0.split(separator: " ")[0]) })
            #expect(wait < 0.5 * timeScale, "a task waited \(wait) s for a thread")
        }
    }

    /// What the library cannot prevent: FoundationNetworking ends the process when a chunked body is followed by
    /// trailer fields (legal HTTP/1.1), in its own code after the transfer completed, through the library and through a
    /// plain data task alike (<doc:LinuxPlatformNotes>: the engine reads it). Should a later FoundationNetworking
    /// read it, this fails, and the article and the URLSession conformance run change with it.
    @Suite("FoundationNetworking and trailer fields (in a process of its own)")
    struct TrailerFieldsTests {
        @Test(
            "A response with trailer fields ends the process, through the library and a plain URLSession task",
            arguments: ["trailers", "trailers-plain"])
        func trailerFieldsEndTheProcess(scenario: String) async throws {
            let child = try await runChild(Probe.executable, [scenario], timeout: 60)

            // Ended by Swift's fatalError ("Transfer completed, but there's no response") before it could print an
            // outcome: killed by SIGILL (status 132), or under ThreadSanitizer its exit status 66 once it has reported
            // on the crashing thread. A FoundationNetworking that read the response would print one and exit with 0.
            #expect(child.status != 0, "exited with \(child.status): \(child.output)")
            #expect(!child.output.contains("outcome:"), "\(child.output)")
        }
    }

    /// Runs `transport-probe`, built next to the test bundle, and returns the `key: value` lines it prints.
    enum Probe {
        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        /// The executable, next to the test bundle in the build directory.
        static var executable: URL {
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
                .appendingPathComponent("transport-probe")
        }

        static func run(_ arguments: [String], timeout: TimeInterval = 60) async throws -> [String: String] {
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw Failure(description: "\(executable.path) is missing: build it with `swift build --build-tests`")
            }
            let child = try await runChild(executable, arguments, timeout: timeout)
            guard child.status == 0 else {
                throw Failure(description: "transport-probe \(arguments) exited with \(child.status): \(child.output)")
            }
            var result: [String: String] = [:]
            for line in child.output.split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                result[String(line[..<colon])] = value
            }
            return result
        }
    }

    extension [String: String] {
        /// The probe's `elapsed-seconds`.
        var seconds: TimeInterval? { self["elapsed-seconds"].flatMap(TimeInterval.init) }
    }
#endif

/// Nothing of a client outlives it: its session (with its connections and descriptors) is released once the client is
/// closed or released, whatever timeout its requests had.
@Suite("Transport lifetime")
struct TransportLifetimeTests {
    /// A weak reference that can cross into a polling closure.
    final class WeakSession: @unchecked Sendable {
        // @unchecked Sendable: written once before it is shared; a weak load is atomic.
        weak var session: URLSession?
    }

    /// A client of `server` whose session `watch` observes, after one request with the default 60 s timeout.
    static func clientAfterOneRequest(_ server: MockServer, watch: WeakSession) async throws -> SimpleNetworking {
        let api = makeLoopbackClient(server)
        _ = try await api.get("/one").response()
        let transport = try #require(api.transport as? URLSessionTransport)
        watch.session = transport.session
        return api
    }

    @Test("close() releases the session at once, though the request's 60 s timeout has not passed")
    func closeReleasesSession() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let watch = WeakSession()
        var api: SimpleNetworking? = try await Self.clientAfterOneRequest(server, watch: watch)
        #expect(watch.session != nil)

        api?.close()
        api = nil

        // Before, the deadline work item kept the task, and so the session, for the whole 60 s: the bound stays under
        // that even scaled by 5.
        #expect(await eventually(timeout: 10) { watch.session == nil })
    }

    @Test("A client released without close() invalidates and releases its own session")
    func releaseInvalidatesSession() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let watch = WeakSession()
        var api: SimpleNetworking? = try await Self.clientAfterOneRequest(server, watch: watch)
        #expect(watch.session != nil)

        api = nil

        // Before, nothing invalidated it: URLSession keeps itself and its delegate until invalidated.
        #expect(api == nil)
        #expect(await eventually { watch.session == nil })
    }

    #if os(Linux)
        // transport-probe reads /proc: Linux only.
        @Test("close() closes the client's connections and sockets while the client is still held")
        func closeClosesConnections() async throws {
            // In a process of its own, so that only this client's descriptors count.
            let result = try await Probe.run(["close-connections", "4", "\(5 * timeScale)"])

            // One connection per request, each started while the one before waited for its answer.
            let before = try #require(result["connections-before-close"].flatMap(Int.init), "\(result)")
            #expect(before >= 2, "\(result)")
            // Before, the 4 connections (then in CLOSE_WAIT) and a pair of Unix sockets stayed open until the
            // client was released: FoundationNetworking frees libcurl's connections only when the session is
            // deallocated.
            #expect(result["connections-after-close"] == "0", "\(result)")
            let socketsBefore = try #require(result["sockets-before"].flatMap(Int.init), "\(result)")
            let socketsAfter = try #require(result["sockets-after-close"].flatMap(Int.init), "\(result)")
            #expect(socketsAfter <= socketsBefore, "\(result)")
        }
    #endif
}
