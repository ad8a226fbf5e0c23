import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A directory of its own for one test, removed at the end.
final class ScratchDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("transfers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The names in the directory, hidden temporary files included.
    var names: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// `count` bytes that differ from one position to the next, so that a missing or repeated piece shows.
func patternedBytes(_ count: Int, seed: UInt8 = 0) -> Data {
    // One block of a prime length (no chunk or buffer size lines up with it), made once and copied over and over
    // from a rotating start: a loop per byte over megabytes, in a debug build, held a thread of the small
    // cooperative pool long enough to stall parallel suites on a busy machine.
    let block = patternBlock
    let start = Int(seed) &* 7_919 % block.count
    var data = Data(capacity: count)
    var offset = start
    while data.count < count {
        let length = min(block.count - offset, count - data.count)
        data.append(contentsOf: block[offset..<(offset + length)])
        offset = 0
    }
    return data
}

/// The block ``patternedBytes(_:seed:)`` repeats: 65,521 bytes, a prime length.
private let patternBlock: [UInt8] = (0..<65_521).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 10) }

@Suite("Downloads to a file")
struct DownloadTests {
    @Test("3 MiB arrive at the destination byte for byte, past the client's 1 MiB limit, with no file left over")
    func downloadsToFile() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // Past the client's limit, which a download does not apply; small enough not to keep libcurl's work queue,
        // which every session of the process shares, busy for long while parallel suites run.
        let body = patternedBytes(3 * 1024 * 1024)
        server.route { _ in MockResponse(body: body) }
        let api = makeLoopbackClient(server) { $0.maximumResponseBodySize = 1024 * 1024 }
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("big.bin")

        let response = try await api.get("/big").download(to: destination)

        #expect(response.statusCode == 200)
        #expect(response.fileURL == destination)
        #expect(response.body.isEmpty)
        #expect(try Data(contentsOf: destination) == body)
        #expect(directory.names == ["big.bin"])
    }

    @Test("A download replaces a file already at the destination only once it is complete")
    func replacesExistingFile() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(MockResponse(body: Data("new".utf8)))
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("data.txt")
        try Data("old".utf8).write(to: destination)

        _ = try await api.get("/data").download(to: destination)

        #expect(try String(contentsOf: destination, encoding: .utf8) == "new")
        #expect(directory.names == ["data.txt"])
    }

    @Test("A connection dropped mid-body fails the download and leaves no partial file, nor touches the old one")
    func dropLeavesNoPartialFile() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            MockResponse(body: patternedBytes(4 * 1024 * 1024), faults: [.dropAfterBodyBytes(1_500_000)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("cut.bin")
        try Data("previous".utf8).write(to: destination)

        let result = await outcome { try await api.get("/cut").download(to: destination) }

        #expect(result.failureValue?.transportFailure?.category == .connectionLost)
        #expect(try String(contentsOf: destination, encoding: .utf8) == "previous")
        #expect(directory.names == ["cut.bin"])
    }

    @Test("Cancelling mid-body stops the download with cancelled and removes the temporary file")
    func cancelLeavesNothing() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // 64 KiB every 20 ms of a 64 MiB body: a transfer of about 20 s, cancelled once part of it is on disk. Long,
        // so that the cancel lands mid-body even when a busy machine delays this task's polling by seconds: with an
        // 8 MiB body (2.6 s) under ThreadSanitizer the body sometimes ended first, and was moved into place.
        server.route { _ in
            MockResponse(
                body: patternedBytes(1024 * 1024), faults: [.repeatBody(64), .drip(bytes: 64 * 1024, interval: 0.02)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("slow.bin")
        let progress = Locked<Int64>(0)
        let request = api.get("/slow").progress { value in progress.set(value.bytesCompleted) }
        let task = Task { await outcome { try await request.download(to: destination) } }
        #expect(await eventually { progress.current > 256 * 1024 })
        #expect(directory.names.count == 1)  // the temporary file, hidden, being written

        task.cancel()
        let result = await task.value

        #expect(result.failureValue.map { if case .cancelled = $0 { true } else { false } } == true)
        #expect(await eventually { directory.names.isEmpty }, "\(directory.names)")
    }

    @Test("A cancel that comes after the file was moved into place leaves a success: the file and the result agree")
    func cancelAfterMoveSucceeds() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: patternedBytes(64 * 1024)) }
        // The handler job waits until the test has cancelled, so the cancel lands between the move and the handlers.
        let cancelled = Locked(false)
        let api = makeLoopbackClient(server) { configuration in
            configuration.handlerQueue = HandlerQueue { job in
                DispatchQueue.global().async {
                    while !cancelled.current { usleep(1000) }
                    job()
                }
            }
        }
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("done.bin")
        let request = api.get("/done").on(success: { _ in })
        let task = Task { await outcome { try await request.download(to: destination) } }
        #expect(await eventually { directory.names == ["done.bin"] })
        task.cancel()
        cancelled.set(true)
        let result = await task.value

        #expect(result.failureValue == nil, "\(String(describing: result.failureValue))")
        #expect(try Data(contentsOf: destination) == patternedBytes(64 * 1024))
    }

    @Test("A redirect is followed and only the final 2xx body is written")
    func followsRedirect() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            request.path == "/old"
                ? MockResponse(status: 302, headers: [("Location", "/new")], body: Data("moved".utf8))
                : MockResponse(body: patternedBytes(2 * 1024 * 1024, seed: 7))
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("moved.bin")

        let response = try await api.get("/old").download(to: destination)

        #expect(response.url?.path == "/new")
        #expect(try Data(contentsOf: destination) == patternedBytes(2 * 1024 * 1024, seed: 7))
        #expect(server.requests.map(\.path) == ["/old", "/new"])
    }

    @Test("A 401 mid-way is re-authenticated and the retried download lands; the 401 body never reaches the file")
    func reauthenticatesDownload() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let body = patternedBytes(3 * 1024 * 1024, seed: 3)
        server.route { request in
            if request.path == "/auth" { return .json(#"{"token": "fresh"}"#) }
            guard request.header("Authorization") == "Bearer fresh" else {
                return MockResponse(status: 401, body: Data("expired".utf8))
            }
            return MockResponse(body: body)
        }
        var configuration = SimpleNetworking.Configuration()
        configuration.defaultHeaders = ["Authorization": "Bearer stale"]
        let api = MyAPI(baseURL: server.baseURL, configuration: configuration)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("secured.bin")

        let response = try await api.get("/file").download(to: destination)

        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: destination) == body)
        #expect(server.requests.map(\.path) == ["/file", "/auth", "/file"])
        #expect(directory.names == ["secured.bin"])
    }

    @Test("A non-2xx answer goes to the error handlers with its body in memory, and no file is written")
    func errorBodyInMemory() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(.json(#"{"error": "gone"}"#, status: 410))
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()

        let result = await outcome { try await api.get("/gone").download(to: directory.file("gone.json")) }

        #expect(result.failureValue?.statusCode == 410)
        #expect(result.failureValue?.response?.string == #"{"error": "gone"}"#)
        #expect(directory.names.isEmpty)
    }

    @Test("A size limit set on the request applies to the download, and the partial file is removed")
    func explicitLimit() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: patternedBytes(64 * 1024), chunked: true, faults: [.repeatBody(64)]) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()

        let result = await outcome {
            try await api.get("/big").maximumResponseBodySize(1024 * 1024).download(to: directory.file("big.bin"))
        }

        #expect(result.failureValue.map { if case .responseTooLarge(1024 * 1024) = $0 { true } else { false } } == true)
        #expect(await eventually { directory.names.isEmpty })
    }

    @Test("A destination whose directory cannot be made (a file has its name) fails with fileFailed, naming the file")
    func missingDirectory() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(MockResponse(body: Data("x".utf8)))
        let api = makeLoopbackClient(server)
        defer { api.close() }
        // A missing directory is created (download(to:) makes the folders of its destination); one whose name a file
        // holds cannot be.
        let directory = try ScratchDirectory()
        try Data("in the way".utf8).write(to: directory.file("secret-dir"))
        let destination = directory.url.appendingPathComponent("secret-dir/out.bin")

        let result = await outcome { try await api.get("/x").download(to: destination) }

        guard case .fileFailed(let reason) = result.failureValue else {
            Issue.record("expected fileFailed, got \(result)")
            return
        }
        #expect(reason.contains("out.bin"))
        #expect(!reason.contains("secret-dir"))
    }
}
