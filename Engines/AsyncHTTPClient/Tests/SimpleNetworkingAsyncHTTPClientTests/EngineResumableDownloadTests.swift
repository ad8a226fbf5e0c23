import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

/// Resuming a download over the engine, as over URLSession (the library's `ResumableDownloadTests`): the first answer
/// drops part-way, the retry asks for the rest, and the server's answer decides what happens to the partial file.
@Suite("AsyncHTTPClient engine: resumable downloads")
struct EngineResumableDownloadTests {
    enum Answer: String, CaseIterable, Sendable {
        /// `206` with the rest, when `If-Range` matches.
        case rest
        /// `200` with the whole file, the range ignored.
        case whole
        /// `206` that starts 10 bytes before the range asked for.
        case wrongStart
    }

    private static let body = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) })

    @Test(
        "A retry after a drop resumes, restarts after a 200, and refuses a 206 that does not fit",
        arguments: Answer.allCases)
    func resumes(answer: Answer) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let body = Self.body
        server.route { request in
            let validator: (name: String, value: String) = ("ETag", #""v1""#)
            if request.sequenceNumber == 0 {
                return MockResponse(
                    status: 200, headers: [validator], body: body, faults: [.dropAfterBodyBytes(200_000)])
            }
            guard answer != .whole, request.header("If-Range") == validator.value,
                let range = request.header("Range"), let asked = Int(range.dropFirst("bytes=".count).dropLast())
            else { return MockResponse(status: 200, headers: [validator], body: body) }
            let start = answer == .wrongStart ? asked - 10 : asked
            return MockResponse(
                status: 206, headers: [validator, ("Content-Range", "bytes \(start)-\(body.count - 1)/\(body.count)")],
                body: body.subdata(in: start..<body.count))
        }
        var configuration = SimpleNetworking.Configuration()
        configuration.clock = TestClock().simpleClock
        configuration.retryPolicy = RetryPolicy(maximumAttempts: 2)
        let client = SimpleNetworking(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), configuration: configuration)
        defer { client.close() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("engine-resume-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("file.bin")

        let result: Result<SimpleResponse, SimpleNetworkingError>
        do throws(SimpleNetworkingError) {
            result = .success(try await client.get("/file").download(to: destination))
        } catch {
            result = .failure(error)
        }

        let second = try #require(server.requests.dropFirst().first)
        #expect(second.header("Range")?.hasPrefix("bytes=") == true)
        #expect(second.header("If-Range") == #""v1""#)
        #expect(second.httpHeaders.values(for: "Accept-Encoding") == ["identity"])
        switch answer {
        case .rest, .whole:
            #expect(try result.get().statusCode == (answer == .rest ? 206 : 200))
            #expect(try Data(contentsOf: destination) == body)
        case .wrongStart:
            guard case .failure(.transportFailed(let failure, _)) = result else {
                Issue.record("expected badServerResponse, got \(result)")
                return
            }
            #expect(failure.category == .badServerResponse)
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        #expect(left == (answer == .wrongStart ? [] : ["file.bin"]), "\(left)")
    }
}

/// The rest of the library's `ResumableDownloadTests` over the engine: a `Last-Modified` validator, a file that changed
/// between attempts, a `416` for a partial file that is already whole, and `resumable: true` across two calls.
extension EngineResumableDownloadTests {
    /// A file served at every path: its bytes, the validator `If-Range` must name for a range of them, and the header
    /// fields that announce that validator.
    private struct ServedFile: Sendable {
        var body: Data
        var validator: String
        var headers: [(name: String, value: String)]

        /// A file whose validator is the entity tag `tag`.
        static func tagged(_ body: Data, _ tag: String) -> ServedFile {
            ServedFile(body: body, validator: tag, headers: [("ETag", tag)])
        }
    }

    /// `count` bytes that differ from one position to the next, so that a missing or repeated piece shows: ``block``
    /// over and over from a start that `seed` picks, made by copying since a loop per byte is slow in a debug build.
    private static func patterned(_ count: Int, seed: Int) -> Data {
        var data = Data(capacity: count)
        var offset = seed &* 7_919 % block.count
        while data.count < count {
            let length = min(block.count - offset, count - data.count)
            data.append(contentsOf: block[offset..<(offset + length)])
            offset = 0
        }
        return data
    }

    /// The bytes ``patterned(_:seed:)`` repeats: 65,521 of them, a prime number that no buffer size lines up with.
    private static let block: [UInt8] = (0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 10) }

    /// Serves `first` from `server` as a file server that honours byte ranges (RFC 9110 §14): the first answer drops
    /// the connection after `dropAfter` body bytes when given; every later one serves `later` when given (the file
    /// changed after the first answer), else `first`, with `206` and the rest for a range whose `If-Range` names the
    /// file's validator, `416` for one that starts at or past its end, and `200` with the whole file otherwise.
    private static func serve(
        _ first: ServedFile, later: ServedFile? = nil, dropAfter: Int? = nil, from server: MockServer
    ) {
        server.route { request in
            let file = request.sequenceNumber == 0 ? first : later ?? first
            let faults: [MockFault] =
                request.sequenceNumber == 0 ? dropAfter.map { [.dropAfterBodyBytes($0)] } ?? [] : []
            guard request.header("If-Range") == file.validator, let range = request.header("Range"),
                let start = Int(range.dropFirst("bytes=".count).dropLast())
            else { return MockResponse(status: 200, headers: file.headers, body: file.body, faults: faults) }
            guard start < file.body.count else {
                return MockResponse(status: 416, headers: [("Content-Range", "bytes */\(file.body.count)")])
            }
            let rest = ("Content-Range", "bytes \(start)-\(file.body.count - 1)/\(file.body.count)")
            return MockResponse(
                status: 206, headers: file.headers + [rest], body: file.body.subdata(in: start..<file.body.count))
        }
    }

    /// A client of `server` over the engine, whose retries wait on a test clock rather than in real time.
    private static func client(of server: MockServer, attempts: Int) -> SimpleNetworking {
        var configuration = SimpleNetworking.Configuration()
        configuration.clock = TestClock().simpleClock
        configuration.retryPolicy = RetryPolicy(maximumAttempts: attempts)
        return SimpleNetworking(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), configuration: configuration)
    }

    /// A folder of its own for one test, removed when the test lets go of it.
    private final class ScratchFolder: Sendable {
        let url: URL

        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("engine-resume-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        func file(_ name: String) -> URL { url.appendingPathComponent(name) }

        /// The names in the folder, sorted, the hidden partial files included.
        var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    @Test(
        "A Last-Modified a day before Date resumes with it as If-Range; one of the same second is weak and does not",
        arguments: [true, false])
    func resumesWithLastModified(strong: Bool) async throws {
        let body = Self.patterned(600_000, seed: 5)
        let modified = strong ? "Thu, 26 Nov 2026 10:00:00 GMT" : "Fri, 27 Nov 2026 10:00:00 GMT"
        let file = ServedFile(
            body: body, validator: modified,
            headers: [("Last-Modified", modified), ("Date", "Fri, 27 Nov 2026 10:00:00 GMT")])
        let server = try MockServer()
        defer { server.shutdown() }
        Self.serve(file, dropAfter: 200_000, from: server)
        let client = Self.client(of: server, attempts: 2)
        defer { client.close() }
        let folder = try ScratchFolder()

        let response = try await client.get("/file").download(to: folder.file("video.bin"))

        #expect(response.statusCode == (strong ? 206 : 200))
        #expect(try Data(contentsOf: folder.file("video.bin")) == body)
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.header("Range") == nil)
        let second = try #require(requests.dropFirst().first)
        if strong {
            let range = try #require(second.header("Range"))
            let start = try #require(Int(range.dropFirst("bytes=".count).dropLast()), "\(range)")
            #expect(range == "bytes=\(start)-" && start > 0 && start <= 200_000, "\(range)")
            #expect(second.header("If-Range") == modified)
            #expect(second.httpHeaders.values(for: "Accept-Encoding") == ["identity"])
        } else {
            #expect(second.header("Range") == nil)
            #expect(second.header("If-Range") == nil)
        }
        #expect(folder.names == ["video.bin"], "left behind: \(folder.names)")
    }

    @Test("A file that changed between attempts answers the range with 200: the new file replaces the partial one")
    func changedFileRestarts() async throws {
        let original = Self.patterned(600_000, seed: 1)
        let replacement = Self.patterned(599_000, seed: 2)
        let server = try MockServer()
        defer { server.shutdown() }
        Self.serve(
            .tagged(original, #""v1""#), later: .tagged(replacement, #""v2""#), dropAfter: 250_000, from: server)
        let client = Self.client(of: server, attempts: 2)
        defer { client.close() }
        let folder = try ScratchFolder()

        let response = try await client.get("/file").download(to: folder.file("data.bin"))

        #expect(response.statusCode == 200)
        #expect(response.headers["ETag"] == #""v2""#)
        let written = try Data(contentsOf: folder.file("data.bin"))
        #expect(written.count == replacement.count, "appended to the partial file? \(written.count) bytes")
        #expect(written == replacement)
        let second = try #require(server.requests.dropFirst().first)
        #expect(second.header("Range")?.hasPrefix("bytes=") == true)
        #expect(second.header("If-Range") == #""v1""#)
        #expect(server.requestCount == 2)
        #expect(folder.names == ["data.bin"], "left behind: \(folder.names)")
    }

    @Test("A 416 for a partial file that is already the whole file counts as done, as a 200")
    func rangeNotSatisfiableOnCompleteFile() async throws {
        let body = Self.patterned(50_000, seed: 9)
        let server = try MockServer()
        defer { server.shutdown() }
        Self.serve(.tagged(body, #""v1""#), from: server)
        let client = Self.client(of: server, attempts: 2)
        defer { client.close() }
        let folder = try ScratchFolder()
        try body.write(to: folder.file(".done.bin.partial"))
        try Data(#""v1""#.utf8).write(to: folder.file(".done.bin.partial-validator"))

        let response = try await client.get("/file").download(to: folder.file("done.bin"), resumable: true)

        #expect(response.statusCode == 200)
        #expect(response.fileURL == folder.file("done.bin"))
        #expect(response.headers["Content-Length"] == "50000")
        #expect(try Data(contentsOf: folder.file("done.bin")) == body)
        let requests = server.requests
        #expect(requests.count == 1)
        #expect(requests.first?.header("Range") == "bytes=50000-")
        #expect(requests.first?.header("If-Range") == #""v1""#)
        #expect(folder.names == ["done.bin"], "left behind: \(folder.names)")
    }

    @Test("resumable: true keeps the partial file of a failed download, and a later call finishes it with a range")
    func resumesLater() async throws {
        let body = Self.patterned(600_000, seed: 7)
        let server = try MockServer()
        defer { server.shutdown() }
        Self.serve(.tagged(body, #""v1""#), dropAfter: 300_000, from: server)
        let client = Self.client(of: server, attempts: 1)
        defer { client.close() }
        let folder = try ScratchFolder()
        let destination = folder.file("movie.bin")

        await #expect(throws: SimpleNetworkingError.self) {
            _ = try await client.get("/file").download(to: destination, resumable: true)
        }
        #expect(server.requestCount == 1)
        #expect(folder.names == [".movie.bin.partial", ".movie.bin.partial-validator"], "\(folder.names)")
        let kept = try Data(contentsOf: folder.file(".movie.bin.partial"))
        #expect(!kept.isEmpty && kept.count <= 300_000 && body.starts(with: kept), "\(kept.count) bytes kept")
        #expect(try Data(contentsOf: folder.file(".movie.bin.partial-validator")) == Data(#""v1""#.utf8))

        let response = try await client.get("/file").download(to: destination, resumable: true)

        #expect(response.statusCode == 206)
        #expect(response.fileURL == destination)
        #expect(try Data(contentsOf: destination) == body)
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.header("Range") == nil)
        let second = try #require(requests.dropFirst().first)
        #expect(second.header("Range") == "bytes=\(kept.count)-")
        #expect(second.header("If-Range") == #""v1""#)
        #expect(second.httpHeaders.values(for: "Accept-Encoding") == ["identity"])
        #expect(folder.names == ["movie.bin"], "left behind: \(folder.names)")
    }
}
