import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

@Suite("AsyncHTTPClient engine: streaming through the client")
struct EngineStreamingTests {
    /// A client over a fresh engine, for `server`.
    private func makeClient(_ server: MockServer) -> SimpleNetworking {
        SimpleNetworking(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
    }

    @Test("download(to:) writes a 64 MiB body to the file, with progress while it arrives")
    func download() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let piece = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        // Paced, 1 ms between pieces (about a second in all): unpaced, the engine takes the whole body on loopback in
        // less than the 0.1 s between two progress values, and nothing would arrive in between.
        let paced: [MockFault] = [.repeatBody(1024), .drip(bytes: piece.count, interval: 0.001)]
        server.route { _ in MockResponse(status: 200, body: piece, faults: paced) }
        let client = makeClient(server)
        defer { client.close() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let seen = Locked<[Int64]>([])
        _ = try await client.get("/big").progress { progress in
            if progress.direction == .download { seen.withLock { $0.append(progress.bytesCompleted) } }
        }.download(to: file)
        let size = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        let total = Int64(64 * 1024 * 1024)
        #expect(size == total)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        #expect(try handle.read(upToCount: piece.count) == piece)
        // Handlers run on the handler queue: the last value may land just after the download returned.
        for _ in 0..<500 where seen.current.last != total { try await Task.sleep(nanoseconds: 10_000_000) }
        let steps = seen.current
        // Progress is throttled to one value per 0.1 s; some must come while the body arrives.
        #expect(steps.contains { $0 > 0 && $0 < total }, "progress: \(steps)")
        #expect(steps.last == total)
    }

    @Test("body(fileAt:) sends a 16 MiB file byte for byte, with upload progress before the end")
    func uploadFromFile() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let block = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        var body = Data(capacity: 16 * 1024 * 1024)
        for _ in 0..<256 { body.append(block) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("engine-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try body.write(to: file)
        let client = makeClient(server)
        defer { client.close() }
        let seen = Locked<[Int64]>([])
        let response = try await client.put("/upload").body(fileAt: file).progress { progress in
            if progress.direction == .upload { seen.withLock { $0.append(progress.bytesCompleted) } }
        }.response()
        #expect(response.statusCode == 204)
        #expect(server.requests.first?.body == body)
        #expect(server.requests.first?.header("Content-Length") == "\(body.count)")
        #expect(
            seen.current.contains { $0 > 0 && $0 < Int64(body.count) }, "upload progress: \(seen.current.prefix(5))")
    }

    @Test("A reader slower than the network with a 64 KiB buffer reads a 4 MiB body whole: the engine waits for it")
    func backpressure() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(status: 200, body: Data(count: 65_536), faults: [.repeatBody(64)]) }
        let client = makeClient(server)
        defer { client.close() }
        var total = 0
        var pieces = 0
        for try await chunk in client.get("/stream").chunks(bufferSize: 65_536) {
            total += chunk.count
            pieces += 1
            // Slower than loopback: without backpressure the buffer would overflow (streamBufferFull).
            if pieces % 8 == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        }
        #expect(total == 4 * 1024 * 1024)
    }

    @Test("A stream of a body declaring 5 GiB that never ends is read in part and abandoned; its connection closes")
    func hugeDeclaredLength() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            MockResponse(
                status: 200, headers: [("Content-Length", "5368709120")], body: Data(count: 65_536),
                faults: [.repeatBody(.max)])
        }
        let client = makeClient(server)
        defer { client.close() }
        var total = 0
        for try await chunk in client.get("/huge").chunks() {
            total += chunk.count
            if total >= 8 * 1024 * 1024 { break }
        }
        #expect(total >= 8 * 1024 * 1024)
        for _ in 0..<1000 where server.openConnectionCount > 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(server.openConnectionCount == 0)
    }

    @Test("lines() and bytes() read a body as it arrives")
    func linesAndBytes() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            MockResponse(status: 200, body: Data("one\r\ntwo\nthree".utf8), faults: [.drip(bytes: 3, interval: 0.01)])
        }
        let client = makeClient(server)
        defer { client.close() }
        var lines: [String] = []
        for try await line in client.get("/lines").lines() { lines.append(line) }
        #expect(lines == ["one", "two", "three"])
        var bytes: [UInt8] = []
        for try await byte in client.get("/lines").bytes() { bytes.append(byte) }
        #expect(bytes == Array("one\r\ntwo\nthree".utf8))
    }

    @Test(
        "A response the parser refuses names what it refused",
        arguments: [
            (
                Data("HTTP/1.1 200 OK\r\n".utf8)
                    + Data(String(repeating: "X-Filler: 0123456789\r\n", count: 20_000).utf8)
                    + Data("\r\n".utf8), "larger than the parser accepts"
            ),
            (Data("HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n".utf8), "status"),
        ])
    func parserReason(raw: Data, phrase: String) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(status: 200, faults: [.rawResponse(raw)]) }
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }
        do {
            _ = try await transport.send(
                HTTPRequest(method: .get, url: server.url("/")), options: TransportOptions(timeout: 10))
            Issue.record("expected a bad response")
        } catch {
            #expect(error.transportFailure?.category == .badServerResponse, "\(error)")
            #expect("\(error)".contains(phrase), "\(error)")
        }
    }
}

@Suite("AsyncHTTPClient engine: what URLSession on Linux cannot send")
struct EngineSendsTests {
    @Test("A base URL with an IPv6 literal host reaches the server through the engine")
    func ipv6Literal() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("over IPv6") }
        // The IPv4-mapped IPv6 address of the loopback server, written as an IPv6 literal.
        let base = try #require(URL(string: "http://[::ffff:127.0.0.1]:\(server.port)"))
        let client = SimpleNetworking(baseURL: base, transport: AsyncHTTPClientTransport())
        defer { client.close() }
        #expect(try await client.get("/six").response().string == "over IPv6")
        #expect(server.requests.first?.path == "/six")
    }

    @Test("GET and DELETE carry a body through the engine", arguments: [HTTPMethod.get, .delete])
    func bodyOnAnyMethod(method: HTTPMethod) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { .text("got " + $0.bodyText) }
        let client = SimpleNetworking(baseURL: server.baseURL, transport: AsyncHTTPClientTransport())
        defer { client.close() }
        let response = try await client.request(method, "/search").body(json: ["q": "kringle"]).response()
        #expect(response.string == #"got {"q":"kringle"}"#)
        #expect(server.requests.first?.method == method.rawValue)
        #expect(server.requests.first?.header("Content-Length") == "15")
    }
}

/// A value behind a lock, for the tests' callbacks.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    var current: Value { lock.withLock { value } }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
