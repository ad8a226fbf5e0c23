import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A gzip member holding `1 + 258 * repeats` zero bytes, built at test time: one fixed-Huffman deflate block with a
/// literal zero followed by length-258, distance-1 copies (13 bits for every 258 bytes, about 160:1).
enum GzipBomb {
    static let repeats = 260_000
    /// 67,080,001 bytes once decoded (64 MiB).
    static let decodedSize = 1 + 258 * repeats
    /// The compressed bytes, built once (an immutable constant). CRC-32 of the zeros computed with Python's
    /// `zlib.crc32`; decoding stops at the size limit long before the trailer is checked.
    static let data = make(repeats: repeats, crc32: 0x173B_0FBA)

    /// The same construction at 2 MiB, small enough to decode completely without starving parallel tests.
    static let controlRepeats = 8_128
    static let controlDecodedSize = 1 + 258 * controlRepeats
    /// CRC-32 of its zeros from Python's `zlib.crc32`, like the large one's. Computing it here took 1.2 s of a
    /// debug build's CPU inside this static's initializer, which blocked one cooperative thread and, through the
    /// one-time initialisation lock, every other test touching the bombs: the whole parallel suite stalled for seconds.
    static let control = make(repeats: controlRepeats, crc32: 0x3E8C_F55B)

    private static func make(repeats: Int, crc32: UInt32) -> Data {
        // Deflate packs bits least significant first; Huffman codes go most significant bit first, so the fixed
        // codes are written here already bit-reversed.
        var bits = DeflateBitWriter()
        bits.write(0b011, count: 3)  // BFINAL = 1, BTYPE = 01 (fixed Huffman)
        bits.write(0x0C, count: 8)  // literal 0: code 0x30, reversed
        for _ in 0..<repeats {
            bits.write(0xA3, count: 13)  // length 258 (symbol 285, code 0xC5, reversed), then distance 1 (code 0)
        }
        bits.write(0, count: 7)  // end of block
        return GzipMember.wrapping(bits.finished, crc32: crc32, decodedSize: 1 + 258 * repeats)
    }
}

@Suite("Response size limit over loopback")
struct SizeLimitTests {
    @Test(
        "A body one byte over the limit fails; at or under it succeeds",
        arguments: [
            (1_000, false, true), (1_001, false, false), (999, true, true), (1_000, true, true), (1_001, true, false),
            (200_000, true, false),
        ])
    func cap(size: Int, chunked: Bool, succeeds: Bool) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: Data(repeating: 0x61, count: size), chunked: chunked) }
        let api = makeLoopbackClient(server) { $0.maximumResponseBodySize = 1_000 }
        defer { api.close() }

        let error = await failure(of: api.get("/body"))

        if succeeds {
            #expect(error == nil)
        } else {
            guard case .responseTooLarge(limit: 1_000) = error else {
                Issue.record("expected responseTooLarge(limit: 1000), got \(String(describing: error))")
                return
            }
        }
    }

    @Test("A per-request limit overrides the client's, both ways")
    func perRequest() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: Data(count: 5_000)) }
        let api = makeLoopbackClient(server) { $0.maximumResponseBodySize = 1_000 }
        defer { api.close() }

        let raised = await failure(of: api.get("/a").maximumResponseBodySize(5_000))
        let lowered = await failure(of: api.get("/a").maximumResponseBodySize(4_999))

        #expect(raised == nil)
        guard case .responseTooLarge(limit: 4_999) = lowered else {
            Issue.record("expected responseTooLarge(limit: 4999), got \(String(describing: lowered))")
            return
        }
    }

    @Test("The bomb generator makes real gzip: a 2 MiB bomb from it decodes completely under a large limit")
    func bombControl() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let bomb = GzipBomb.control
        server.route { _ in MockResponse(headers: [("Content-Encoding", "gzip")], body: bomb) }
        let api = makeLoopbackClient(server) { $0.maximumResponseBodySize = 128 * 1024 * 1024 }
        defer { api.close() }

        let response = try await api.get("/bomb").response()

        #expect(bomb.count < GzipBomb.controlDecodedSize / 100)
        #expect(response.body.count == GzipBomb.controlDecodedSize)
        #expect(response.body == Data(count: GzipBomb.controlDecodedSize))
        #expect(GzipBomb.data.count < 450_000)
    }

    @Test("A compression bomb stops near the limit, long before its end")
    func bomb() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let bomb = GzipBomb.data
        // About 33 s to send the whole bomb, beyond the bound below; 1 MiB decoded is within the first two writes
        // (alone: ~0.3 s).
        server.route { _ in
            MockResponse(
                headers: [("Content-Encoding", "gzip")], body: bomb, faults: [.drip(bytes: 4_096, interval: 0.3)])
        }
        let events = EventLog()
        let api = makeLoopbackClient(server) {
            $0.maximumResponseBodySize = 1024 * 1024
            $0.eventHandler = { events.append("\($0)") }
        }
        defer { api.close() }

        let start = Date()
        let error = await failure(of: api.get("/bomb"))
        let elapsed = Date().timeIntervalSince(start)

        guard case .responseTooLarge(limit: 1_048_576) = error else {
            Issue.record("expected responseTooLarge(limit: 1048576), got \(String(describing: error))")
            return
        }
        // Loose for a busy machine (5.8 s seen at load 4), and never past 25 s: the whole bomb takes about 33 s.
        #expect(elapsed < min(15 * timeScale, 25), "took \(elapsed) s")
        // The hop's failure event (the attempt's end and the execution's finish follow it).
        let failed = events.all.last { $0.contains(": failed: ") }
        #expect(failed?.hasSuffix("failed: \(SimpleNetworkingError.responseTooLarge(limit: 1_048_576))") == true)
    }

    @Test("The limit holds after a redirect")
    func afterRedirect() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { $0.path == "/start" ? .redirect(to: "/big") : MockResponse(body: Data(count: 2_000)) }
        let api = makeLoopbackClient(server) { $0.maximumResponseBodySize = 1_999 }
        defer { api.close() }

        let error = await failure(of: api.get("/start"))

        guard case .responseTooLarge(limit: 1_999) = error else {
            Issue.record("expected responseTooLarge(limit: 1999), got \(String(describing: error))")
            return
        }
        #expect(server.requests.map(\.path) == ["/start", "/big"])
    }

    @Test("A HEAD response may declare any length")
    func headDeclaresLength() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(headers: [("Content-Length", "5000000")]) }
        let api = makeLoopbackClient(server) { $0.maximumResponseBodySize = 1_000 }
        defer { api.close() }

        let response = try await api.head("/file").response()

        #expect(response.statusCode == 200)
    }
}

@Suite("Timeouts over loopback")
struct TimeoutTests {
    @Test("A 0.9 s timeout lets a 0.1 s response through (on Linux a raw sub-second timeout fires after about 1 ms)")
    func fastEnough() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // 0.8 s of margin: other clients in this process share libcurl's queue, which a busy test can hold briefly.
        server.route { _ in MockResponse(body: Data("late".utf8), faults: [.delayHeaders(0.1)]) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        // Scaled like any upper bound for slower runs; still fractional, and far above the defect's 1 ms.
        let held = await holdsInOne {
            (try? await api.get("/slow").timeout(0.9 * timeScale).response())?.string == "late"
        }
        #expect(held)
    }

    @Test(
        "A 0.5 s timeout stops a slow response in about 0.5 s",
        arguments: [
            [MockFault.delayHeaders(60)], [.delayBody(60)], [.drip(bytes: 1, interval: 0.1)],
        ])
    func tooSlow(faults: [MockFault]) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // Each fault keeps the response from completing for 60 s (the drip: 600 bytes, one per 0.1 s).
        server.route { _ in MockResponse(body: Data(repeating: 0x61, count: 600), faults: faults) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        // Alone this takes 0.50-0.51 s; the upper bound leaves room for a loaded 2-core machine, and is still before the
        // server would have finished (60 s), even at a time scale of 5. A timeout never fires early.
        let seen = Locked<[String]>([])
        let held = await holdsInOne {
            let start = Date()
            let error = await failure(of: api.get("/slow").timeout(0.5))
            let elapsed = Date().timeIntervalSince(start)
            seen.withLock { $0.append(String(format: "%.2f s: %@", elapsed, String(describing: error))) }
            #expect(error?.isTimeout == true, "\(String(describing: error))")
            #expect(elapsed > 0.45, "fired early, after \(elapsed) s")
            return elapsed < 3 * timeScale
        }
        #expect(held, "\(seen.current)")
    }

    @Test("The attempt's timeout covers every redirect hop")
    func acrossRedirects() async throws {
        // Each hop alone fits in the timeout, so a timer per hop would let the request succeed; together they take
        // 0.3 s longer. The timeout grows with `timeScale`, so a slow (ThreadSanitizer) run still reaches the second
        // hop in time; a busy machine that holds the first hop back for most of the timeout (seen: 3.5 s) keeps the
        // second from the server, which is not the defect looked for, so the request is tried up to three times
        // (`holdsInOne`).
        let timeout = 4 * timeScale
        let seen = Locked<[String]>([])
        let held = try await holdsInOne {
            let server = try MockServer()
            defer { server.shutdown() }
            server.route { request in
                request.path == "/start"
                    ? MockResponse(status: 302, headers: [("Location", "/next")], faults: [.delayHeaders(0.5)])
                    : MockResponse(body: Data("done".utf8), faults: [.delayHeaders(timeout - 0.2)])
            }
            let api = makeLoopbackClient(server)
            defer { api.close() }

            let start = Date()
            let error = await failure(of: api.get("/start").timeout(timeout))
            let elapsed = Date().timeIntervalSince(start)
            seen.withLock { $0.append(String(format: "%.2f s, %d requests", elapsed, server.requestCount)) }

            #expect(error?.isTimeout == true, "\(String(describing: error))")
            #expect(elapsed > timeout - 0.05, "took \(elapsed) s")
            return elapsed < timeout + 3 * timeScale && server.requestCount == 2
        }
        #expect(held, "\(seen.current)")
    }
}

@Suite("Authentication challenges")
struct AuthChallengeTests {
    /// FoundationNetworking reaches a fatalError when a Digest or unknown challenge is answered with a credential;
    /// the library never answers, so each of these is a plain 401 for the handlers.
    @Test(
        "A 401 reaches the handlers, whatever the scheme, and is never answered by the session",
        arguments: [
            #"Basic realm="api""#, #"Digest realm="api", nonce="abc", qop="auth""#, "Negotiate", "NTLM",
            #"Bearer error="invalid_token""#, "Unknown-Scheme x=1",
        ])
    func challenges(challenge: String) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            MockResponse(status: 401, headers: [("WWW-Authenticate", challenge)], body: Data("denied".utf8))
        }
        let handled = Counter()
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(
            of: api.get("/private").on(httpStatus: 401) { _, _ in
                handled.increment(); return true
            })

        #expect(error?.statusCode == 401)
        #expect(error?.response?.string == "denied")
        #expect(handled.value == 1)
        #expect(server.requestCount == 1)
        #expect(server.requests.first?.header("Authorization") == nil)
    }
}
