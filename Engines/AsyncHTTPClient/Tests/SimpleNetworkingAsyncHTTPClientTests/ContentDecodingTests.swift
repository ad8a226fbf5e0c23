import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingContentDecoding
import SimpleNetworkingTesting
import Testing

@Suite("AsyncHTTPClient engine: compressed bodies")
struct ContentDecodingTests {
    /// One body in each form the engine decodes, with the `Content-Encoding` that names it.
    static let encoded: [(encoding: String, body: Data, decoded: Data)] = [
        ("gzip", Compressed.gzip, Compressed.text),
        ("x-gzip", Compressed.gzip, Compressed.text),
        (" GZip ", Compressed.gzip, Compressed.text),
        ("deflate", Compressed.zlib, Compressed.text),
        ("deflate", Compressed.rawDeflate, Compressed.text),
        ("gzip", Compressed.twoMembers, Data("first member, second member".utf8)),
        // 1 KB that decodes to 16 pieces: zlib holds most of it after reading the last byte.
        ("gzip", Compressed.mebibyteOfZeros, Data(count: 1024 * 1024)),
    ]

    @Test(
        "gzip, x-gzip, deflate (zlib or raw), gzip of several members and a dense body arrive decoded, whole",
        arguments: 0..<7)
    func decoded(case index: Int) async throws {
        let (encoding, body, decoded) = Self.encoded[index]
        let response = try await send(MockResponse(status: 200, headers: [("Content-Encoding", encoding)], body: body))
        #expect(response.body == decoded, "\(encoding)")
    }

    @Test(
        "A coding the engine does not decode, or several stacked, arrive as they came",
        arguments: [
            [("Content-Encoding", "br")], [("Content-Encoding", "gzip, gzip")],
            [("Content-Encoding", "gzip"), ("Content-Encoding", "gzip")],
        ])
    func passedThrough(headers: [(String, String)]) async throws {
        let response = try await send(MockResponse(status: 200, headers: headers, body: Compressed.gzip))
        #expect(response.body == Compressed.gzip)
    }

    @Test("A HEAD response and a 204 that name gzip but carry no body succeed")
    func emptyBodies() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            MockResponse(
                status: request.method == "HEAD" ? 200 : 204,
                headers: [("Content-Encoding", "gzip"), ("Content-Length", "70")], body: Data())
        }
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        for method in [HTTPMethod.head, .get] {
            let response = try await transport.send(
                HTTPRequest(method: method, url: server.url("/")), options: TransportOptions(timeout: 10))
            #expect(response.body.isEmpty)
        }
    }

    /// Corrupt, cut short and padded bodies, and the words the failure's description must contain.
    static let broken: [(encoding: String, body: Data, phrase: String)] = [
        ("gzip", Compressed.gzip.prefix(30) + Data([0xFF, 0xFF, 0xFF]) + Compressed.gzip.dropFirst(33), "corrupt"),
        ("gzip", Compressed.gzip.dropLast(8), "cut short"),
        ("deflate", Compressed.zlib + Data("extra".utf8), "after the end"),
        ("gzip", Data("not gzip at all".utf8), "corrupt"),
    ]

    @Test("A corrupt, cut short or padded body fails as a bad response that says what is wrong", arguments: 0..<4)
    func broken(case index: Int) async throws {
        let (encoding, body, phrase) = Self.broken[index]
        let error = await failure(MockResponse(status: 200, headers: [("Content-Encoding", encoding)], body: body))
        guard case .transportFailed(let failure, _) = error else {
            Issue.record("expected a transport failure, got \(String(describing: error))")
            return
        }
        #expect(failure.category == .badServerResponse)
        #expect(failure.detail?.contains(phrase) == true, "\(failure)")
    }

    @Test("A gzip bomb stops at the size limit, counted on decoded bytes")
    func bombStopsAtTheLimit() async throws {
        let limited = TransportOptions(timeout: 10, maximumResponseBodySize: 10 * 1024 * 1024)
        let error = await failure(
            MockResponse(
                status: 200, headers: [("Content-Encoding", "gzip")], body: Compressed.mebibyteOfZeros,
                faults: [.repeatBody(1024)]), options: limited)
        guard case .responseTooLarge(limit: 10_485_760) = error else {
            Issue.record("expected responseTooLarge, got \(String(describing: error))")
            return
        }
    }

    @Test("An endless compressed stream is decoded only as the reader takes it, in bounded pieces, and abandoned")
    func endlessCompressedStream() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // Each copy of the body is a gzip member of 1 MiB of zeros in about 1 KB: an endless bomb.
        server.route { _ in
            MockResponse(
                status: 200, headers: [("Content-Encoding", "gzip")], body: Compressed.mebibyteOfZeros,
                faults: [.repeatBody(.max)])
        }
        let client = SimpleNetworking(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        defer { client.close() }
        var total = 0
        var largest = 0
        for try await chunk in client.get("/bomb").chunks() {
            #expect(chunk.first == 0 && chunk.last == 0)
            total += chunk.count
            largest = max(largest, chunk.count)
            if total >= 32 * 1024 * 1024 { break }
        }
        #expect(total >= 32 * 1024 * 1024)
        #expect(largest <= ContentDecoder.pieceSize)
        for _ in 0..<1000 where server.openConnectionCount > 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(server.openConnectionCount == 0)
    }

    @Test("The decoder never crashes or loops on mangled input, and never hands over more than a piece at once")
    func mangledInput() throws {
        var generator = SeededGenerator(seed: 17)
        let samples = [Compressed.gzip, Compressed.zlib, Compressed.rawDeflate, Compressed.twoMembers]
        var outcomes = (decoded: 0, failed: 0)
        for round in 0..<2_000 {
            var body = samples[round % samples.count]
            // Flip, drop or insert a few bytes, then feed it in random splits.
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let position = Int.random(in: 0..<body.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: body[position] ^= UInt8.random(in: 1...255, using: &generator)
                case 1: body.remove(at: position)
                default: body.insert(UInt8.random(in: 0...255, using: &generator), at: position)
                }
            }
            guard let decoder = ContentDecoder(contentEncoding: round % 2 == 0 ? "gzip" : "deflate") else {
                Issue.record("no decoder")
                return
            }
            do throws(ContentDecoder.Failure) {
                var rest = body[...]
                while !rest.isEmpty {
                    let split = rest.prefix(Int.random(in: 1...16, using: &generator))
                    rest = rest.dropFirst(split.count)
                    decoder.start(split)
                    while let piece = try decoder.nextPiece() {
                        #expect(piece.count <= ContentDecoder.pieceSize)
                    }
                }
                try decoder.finish()
                outcomes.decoded += 1
            } catch {
                #expect(!error.description.isEmpty)
                outcomes.failed += 1
            }
        }
        #expect(outcomes.decoded + outcomes.failed == 2_000)
        #expect(outcomes.failed > 1_000, "most mangled bodies must fail: \(outcomes)")
    }

    /// The response the engine returns for `response`.
    private func send(_ response: MockResponse, options: TransportOptions = TransportOptions(timeout: 10)) async throws
        -> SimpleResponse
    {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in response }
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        return try await transport.send(HTTPRequest(method: .get, url: server.url("/")), options: options)
    }

    /// The error the engine throws for `response`, or `nil` when it succeeds.
    private func failure(_ response: MockResponse, options: TransportOptions = TransportOptions(timeout: 10)) async
        -> SimpleNetworkingError?
    {
        do {
            _ = try await send(response, options: options)
            return nil
        } catch let error as SimpleNetworkingError {
            return error
        } catch {
            return nil
        }
    }
}

/// Compressed bodies made with Python's `gzip` and `zlib` modules (gzip with the time field zero).
private enum Compressed {
    static let text = Data(String(repeating: "SimpleNetworking decodes this body. ", count: 40).utf8)
    static let gzip = base64(
        "H4sIAAAAAAACAwvOzC3ISfVLLSnPL8rOzEtXSElNzk9JLVYoycgsVkjKT6nUUwgeVTOqZlTNqJpRNXRXAwBdFiPCoAUAAA==")
    static let zlib = base64("eJwLzswtyEn1Sy0pzy/KzsxLV0hJTc5PSS1WKMnILFZIyk+p1FMIHlUzqmZUzaiaUTV0VwMAmAgbpw==")
    static let rawDeflate = base64("C87MLchJ9UstKc8vys7MS1dISU3OT0ktVijJyCxWSMpPqdRTCB5VM6pmVM2omlE1dFcDAA==")
    /// "first member, " and "second member" as two gzip members, one after the other.
    static let twoMembers = base64(
        "H4sIAAAAAAACA0vLLCouUchNzU1KLdJRAADe/wpiDgAAAB+LCAAAAAAAAgMrTk3Oz0tRyE3NTUotAgAkdPqfDQAAAA==")
    /// A gzip member of 1 MiB of zero bytes at level 9: a fixed header, 1,016 zero bytes of deflate, its CRC-32
    /// and length.
    static let mebibyteOfZeros =
        Data([
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xed, 0xc1, 0x31, 0x01, 0x00, 0x00, 0x00, 0xc2,
            0xa0, 0xf5, 0x4f, 0x6d, 0x08, 0x5f, 0xa0,
        ]) + Data(count: 1016) + Data([0x3e, 0x03, 0x1c, 0xea, 0x38, 0xa7, 0x00, 0x00, 0x10, 0x00])

    private static func base64(_ text: String) -> Data { Data(base64Encoded: text) ?? Data() }
}

/// A small deterministic generator (SplitMix64), so that a failing round can be replayed.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
