import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Response byte streams")
struct ResponseStreamTests {
    @Test("chunks() yields the whole 3 MiB body in order, past the client's 1 MiB limit")
    func chunksYieldWholeBody() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // Small enough not to keep libcurl's shared work queue busy for long while parallel suites run.
        let body = patternedBytes(3 * 1024 * 1024)
        server.route { _ in MockResponse(body: body) }
        let api = makeLoopbackClient(server) { $0.maximumResponseBodySize = 1024 * 1024 }
        defer { api.close() }

        var received = Data()
        var pieces = 0
        // A buffer larger than the body: a reader slowed by a busy machine must not make this test fail.
        for try await chunk in api.get("/stream").chunks(bufferSize: 32 * 1024 * 1024) {
            received.append(chunk)
            pieces += 1
        }

        #expect(received == body)
        #expect(pieces > 1)
    }

    @Test("lines() reads newline-delimited JSON as it arrives: CRLF and LF, a last line without a break")
    func linesArriveAsSent() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let text = "{\"n\":1}\r\n{\"n\":2}\n\n{\"n\":\"é\"}"
        // One piece of 8 bytes every 0.3 s: the first line is complete long before the body.
        server.route { _ in
            MockResponse(body: Data(text.utf8), chunked: true, faults: [.drip(bytes: 8, interval: 0.3)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        // Wire timing on a busy machine: the first line must come early in one of three runs (see `holdsInOne`).
        let early = try await holdsInOne {
            let start = Date()
            var lines: [String] = []
            var firstLineAt: TimeInterval?
            for try await line in api.get("/events").lines() {
                lines.append(line)
                if firstLineAt == nil { firstLineAt = Date().timeIntervalSince(start) }
            }
            let total = Date().timeIntervalSince(start)
            #expect(lines == ["{\"n\":1}", "{\"n\":2}", "", "{\"n\":\"é\"}"])
            // The body takes at least 4 pauses of 0.3 s; the first line needs only the first piece or two.
            #expect(total >= 1.2)
            return try #require(firstLineAt) < total - 0.5
        }
        #expect(early)
    }

    @Test("bytes() yields every byte, and a non-2xx answer throws unacceptableStatus with its body")
    func bytesAndErrors() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.enqueue(MockResponse(body: patternedBytes(100_000)))
        server.enqueue(.json(#"{"error":"nope"}"#, status: 403))
        let api = makeLoopbackClient(server)
        defer { api.close() }

        var bytes: [UInt8] = []
        for try await byte in api.get("/bytes").bytes() { bytes.append(byte) }
        #expect(Data(bytes) == patternedBytes(100_000))

        do {
            for try await _ in api.get("/forbidden").chunks() {}
            Issue.record("a 403 must throw")
        } catch {
            #expect(error.statusCode == 403)
            #expect(error.response?.string == #"{"error":"nope"}"#)
        }
    }

    @Test("Leaving the loop early cancels the request: the error handlers get cancelled")
    func breakCancels() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        // 4 MiB dripped over about 5 s, not endless: on Linux a cancel lands only when libcurl's pass over what is
        // already arriving ends, and every session of the process shares that work queue (<doc:LinuxPlatformNotes>).
        // Dripped, so that a reader starved on a busy machine still breaks long before the body could end by itself.
        server.route { _ in
            MockResponse(
                body: patternedBytes(16 * 1024), chunked: true,
                faults: [.repeatBody(256), .drip(bytes: 16 * 1024, interval: 0.02)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let errors = Locked<[String]>([])
        let request = api.get("/endless").on(error: { error, _ in errors.withLock { $0.append("\(error)") } })

        var received = 0
        for try await chunk in request.chunks() {
            received += chunk.count
            if received > 256 * 1024 { break }
        }

        #expect(received > 256 * 1024)
        #expect(
            await eventually { errors.current == ["\(SimpleNetworkingError.cancelled)"] },
            "\(errors.current)")
    }

    @Test("Cancelling the reading task ends the iteration with cancelled")
    func taskCancellation() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            MockResponse(
                body: Data("tick\n".utf8), chunked: true, faults: [.repeatBody(100), .drip(bytes: 5, interval: 0.05)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let seen = Counter()
        let task = Task { () -> SimpleNetworkingError? in
            do throws(SimpleNetworkingError) {
                for try await _ in api.get("/ticks").lines() { seen.increment() }
                return nil
            } catch {
                return error
            }
        }
        #expect(await eventually { seen.value >= 2 })

        task.cancel()

        let error = await task.value
        #expect(error.map { if case .cancelled = $0 { true } else { false } } == true)
    }

    @Test("A reader more than bufferSize behind the network gets streamBufferFull, after what was buffered")
    func slowReaderOverflows() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: patternedBytes(64 * 1024), chunked: true, faults: [.repeatBody(64)]) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        var received = 0
        var thrown: SimpleNetworkingError?
        do {
            for try await chunk in api.get("/fast").chunks(bufferSize: 256 * 1024) {
                if received == 0 { try? await Task.sleep(nanoseconds: 500_000_000) }
                received += chunk.count
            }
        } catch {
            thrown = error
        }

        #expect(thrown.map { if case .streamBufferFull(256 * 1024) = $0 { true } else { false } } == true)
        #expect(received > 0)
        #expect(received < 4 * 1024 * 1024)
    }

    @Test("The retry policy retries a stream that failed before the reader saw a byte, never one it had started")
    func retriesOnlyUnreadStreams() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let body = patternedBytes(2 * 1024 * 1024)
        server.enqueue(MockResponse(body: body, faults: [.dropBeforeBody]))
        server.enqueue(MockResponse(body: body))
        server.enqueue(MockResponse(body: body, faults: [.dropAfterBodyBytes(1024 * 1024)]))
        server.enqueue(MockResponse(body: body))
        var configuration = SimpleNetworking.Configuration()
        configuration.retryPolicy = .default
        let api = SimpleNetworking(baseURL: server.baseURL, configuration: configuration)
        defer { api.close() }

        var first = Data()
        for try await chunk in api.get("/retried").chunks() { first.append(chunk) }
        #expect(first == body)
        #expect(server.requestCount == 2)

        var second = Data()
        do {
            for try await chunk in api.get("/cut").chunks() { second.append(chunk) }
            Issue.record("a body cut after the reader had part of it must throw")
        } catch {
            #expect(error.transportFailure?.category == .connectionLost)
        }
        #expect(!second.isEmpty)
        #expect(second == body.prefix(second.count))
        #expect(server.requestCount == 3)
    }

    @Test("MockTransport streams: it serves response streams and downloads in pieces")
    func streamsOnMockTransport() async throws {
        let (api, transport) = makeMockClient()
        transport.route { _ in .status(200, body: Data("one\ntwo\n".utf8)) }
        let directory = try ScratchDirectory()

        var lines: [String] = []
        for try await line in api.get("/lines").lines() { lines.append(line) }
        let response = try await api.get("/file").download(to: directory.file("file.txt"))

        #expect(lines == ["one", "two"])
        #expect(response.fileURL == directory.file("file.txt"))
        #expect(try String(contentsOf: directory.file("file.txt"), encoding: .utf8) == "one\ntwo\n")
    }
}

@Suite("Transfer progress")
struct TransferProgressTests {
    /// Values that only ever grow and end at `total`, with the size known all along when `expected` is.
    static func check(_ values: [TransferProgress], total: Int64, expected: Int64?) {
        #expect(values.count >= 2)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.bytesCompleted <= $1.bytesCompleted })
        #expect(values.last?.bytesCompleted == total)
        #expect(values.last?.fractionCompleted == 1)
        #expect(values.dropLast().allSatisfy { $0.bytesExpected == expected })
    }

    @Test("Download progress on the handler queue: monotonic, Content-Length known, ending at the total")
    func downloadProgressClosure() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let size = 2 * 1024 * 1024
        server.route { _ in MockResponse(body: patternedBytes(size), faults: [.drip(bytes: 128 * 1024, interval: 0.03)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let values = Locked<[TransferProgress]>([])

        let response = try await api.get("/file").progress { value in values.withLock { $0.append(value) } }.response()

        #expect(response.body.count == size)
        #expect(await eventually { values.current.last?.bytesCompleted == Int64(size) })
        let downloads = values.current.filter { $0.direction == .download }
        Self.check(downloads, total: Int64(size), expected: Int64(size))
        #expect(downloads.first?.bytesCompleted == 0)
    }

    @Test("Without Content-Length there is no fraction until the end; progressUpdates() ends with the execution")
    func chunkedProgressSequence() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            MockResponse(
                body: patternedBytes(64 * 1024), chunked: true,
                faults: [.repeatBody(16), .drip(bytes: 64 * 1024, interval: 0.03)])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let request = api.get("/chunked")
        let updates = request.progressUpdates()
        let collected = Task {
            var values: [TransferProgress] = []
            for await value in updates { values.append(value) }
            return values
        }

        _ = try await request.download(to: directory.file("chunked.bin"))
        let values = await collected.value

        Self.check(values, total: 1024 * 1024, expected: nil)
        #expect(values.dropLast().allSatisfy { $0.fractionCompleted == nil })
        #expect(values.last?.bytesExpected == Int64(1024 * 1024))
    }
}
