import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A file server that honours byte ranges the way RFC 9110 §14 says, with switches for the ways real servers differ:
/// it serves one file at every path, the first answer drops the connection part-way, and later answers follow `mode`.
final class RangeServer: Sendable {
    enum Mode: Sendable {
        /// `206` for a range whose `If-Range` matches the current validator, else `200` with the whole file.
        case honoursRanges
        /// `200` with the whole file, whatever the request asks for.
        case ignoresRanges
        /// `206` that starts 10 bytes before the range asked for.
        case wrongStart
    }

    let server: MockServer
    private let file: (body: Data, validator: String)
    private let replacement = Locked<(body: Data, validator: String)?>(nil)
    private let mode: Mode
    private let dropAfter: Int?
    /// The header fields the second and later requests came with: Range, If-Range and Accept-Encoding.
    var rangeFields: [[String: String]] {
        server.requests.dropFirst().map { request in
            ["Range", "If-Range", "Accept-Encoding"].reduce(into: [:]) { $0[$1] = request.header($1) }
        }
    }

    init(
        body: Data, validatorHeader: (name: String, value: String)? = ("ETag", #""v1""#), mode: Mode = .honoursRanges,
        dropAfter: Int? = nil
    ) throws {
        server = try MockServer()
        file = (body, validatorHeader?.value ?? "")
        self.mode = mode
        self.dropAfter = dropAfter
        let (original, replacement) = (file, replacement)
        server.route { [mode, dropAfter] request in
            var file = original
            if request.sequenceNumber > 0, let changed = replacement.current { file = changed }
            var headers: [(name: String, value: String)] = []
            if let validatorHeader {
                headers.append((validatorHeader.name, file.validator))
                if validatorHeader.name == "Last-Modified" {
                    headers.append(("Date", "Fri, 27 Nov 2026 10:00:00 GMT"))
                }
            }
            let faults: [MockFault] =
                request.sequenceNumber == 0 ? dropAfter.map { [.dropAfterBodyBytes($0)] } ?? [] : []
            guard let range = request.header("Range"), mode != .ignoresRanges,
                request.header("If-Range") == file.validator,
                let start = Int(range.dropFirst("bytes=".count).dropLast())
            else { return MockResponse(status: 200, headers: headers, body: file.body, faults: faults) }
            guard start < file.body.count else {
                return MockResponse(status: 416, headers: [("Content-Range", "bytes */\(file.body.count)")])
            }
            let from = mode == .wrongStart ? max(0, start - 10) : start
            headers.append(("Content-Range", "bytes \(from)-\(file.body.count - 1)/\(file.body.count)"))
            return MockResponse(status: 206, headers: headers, body: file.body.subdata(in: from..<file.body.count))
        }
    }

    /// Replaces the file once the first request has been answered: a new body under a new validator.
    func change(to body: Data, validator: String) {
        replacement.set((body, validator))
    }

    func shutdown() { server.shutdown() }
}

@Suite("Downloads that resume with a range request")
struct ResumableDownloadTests {
    private static let size = 600_000

    /// A client over loopback whose retries wait on paper.
    private func client(_ server: RangeServer, attempts: Int = 3) -> SimpleNetworking {
        makeLoopbackClient(server.server) { configuration in
            configuration.clock = TestClock().simpleClock
            configuration.retryPolicy = RetryPolicy(maximumAttempts: attempts)
        }
    }

    @Test(
        "A download cut off part-way resumes with Range and If-Range from where the file stops, byte for byte",
        arguments: [("ETag", #""v1""#), ("Last-Modified", "Thu, 26 Nov 2026 10:00:00 GMT")])
    func resumesAfterDrop(validator: (name: String, value: String)) async throws {
        let body = patternedBytes(Self.size, seed: 5)
        let server = try RangeServer(body: body, validatorHeader: validator, dropAfter: 200_000)
        defer { server.shutdown() }
        let api = client(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("video.bin")

        let response = try await api.get("/file").download(to: destination)

        #expect(response.statusCode == 206)
        #expect(try Data(contentsOf: destination) == body)
        #expect(server.server.requestCount == 2)
        let fields = try #require(server.rangeFields.first)
        let start = try #require(fields["Range"].flatMap { Int($0.dropFirst("bytes=".count).dropLast()) })
        #expect(start > 0 && start <= 200_000, "\(fields)")
        #expect(fields["If-Range"] == validator.value)
        #expect(fields["Accept-Encoding"] == "identity")
        #expect(directory.names == ["video.bin"], "left behind: \(directory.names)")
    }

    @Test("A 200 to the range, from a server that ignores ranges or whose file changed, restarts the file")
    func twoHundredRestarts() async throws {
        for changes in [false, true] {
            let original = patternedBytes(Self.size, seed: 1)
            let server = try RangeServer(
                body: original, mode: changes ? .honoursRanges : .ignoresRanges, dropAfter: 250_000)
            defer { server.shutdown() }
            let replacement = patternedBytes(Self.size - 1_000, seed: 2)
            if changes { server.change(to: replacement, validator: #""v2""#) }
            let api = client(server)
            defer { api.close() }
            let directory = try ScratchDirectory()
            let destination = directory.file("data.bin")

            let response = try await api.get("/file").download(to: destination)

            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: destination) == (changes ? replacement : original), "changes: \(changes)")
            #expect(server.rangeFields.first?["Range"] != nil)
            #expect(directory.names == ["data.bin"])
        }
    }

    @Test("A first answer with a content coding is not resumed: the retry asks for the whole file, which comes whole")
    func codedAnswerRestarts() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let coded = GzipBomb.control
        let fields = [("ETag", #""g1""#), ("Content-Encoding", "gzip")]
        server.route { request in
            // A server that serves ranges of the coded bytes: a resume would append coded bytes to decoded ones.
            if let range = request.header("Range"), let start = Int(range.dropFirst("bytes=".count).dropLast()),
                start < coded.count
            {
                return MockResponse(
                    status: 206,
                    headers: fields + [("Content-Range", "bytes \(start)-\(coded.count - 1)/\(coded.count)")],
                    body: coded.subdata(in: start..<coded.count))
            }
            let faults: [MockFault] = request.sequenceNumber == 0 ? [.dropAfterBodyBytes(coded.count / 2)] : []
            return MockResponse(status: 200, headers: fields, body: coded, faults: faults)
        }
        let api = makeLoopbackClient(server) { configuration in
            configuration.clock = TestClock().simpleClock
            configuration.retryPolicy = RetryPolicy(maximumAttempts: 3)
        }
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("zeros.bin")

        let response = try await api.get("/zeros").download(to: destination)

        #expect(response.statusCode == 200)
        #expect(server.requestCount == 2)
        #expect(server.requests.last?.header("Range") == nil)
        #expect(try Data(contentsOf: destination) == Data(count: GzipBomb.controlDecodedSize))
        #expect(directory.names == ["zeros.bin"], "left behind: \(directory.names)")
    }

    @Test(
        "A 206 that does not start where the file ends is refused: badServerResponse, nothing left behind",
        arguments: [false, true])
    func wrongStartRefused(resumable: Bool) async throws {
        let server = try RangeServer(body: patternedBytes(Self.size), mode: .wrongStart, dropAfter: 100_000)
        defer { server.shutdown() }
        let api = client(server, attempts: 2)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("data.bin")

        await #expect {
            _ = try await api.get("/file").download(to: destination, resumable: resumable)
        } throws: { error in
            guard case .transportFailed(let failure, _) = error as? SimpleNetworkingError else { return false }
            return failure.category == .badServerResponse && failure.detail?.contains("partial file ends") == true
        }
        #expect(directory.names.isEmpty, "left behind: \(directory.names)")
    }

    @Test(
        "Without a strong validator a retry asks for the whole file again",
        arguments: [("X-None", "none"), ("ETag", #"W/"weak""#)] as [(name: String, value: String)])
    func notResumable(validator: (name: String, value: String)) async throws {
        let body = patternedBytes(Self.size, seed: 3)
        let server = try RangeServer(
            body: body, validatorHeader: validator, dropAfter: 150_000)
        defer { server.shutdown() }
        let api = client(server)
        defer { api.close() }
        let directory = try ScratchDirectory()

        let response = try await api.get("/file").download(to: directory.file("whole.bin"))

        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: directory.file("whole.bin")) == body)
        #expect(server.rangeFields.first?["Range"] == nil)
        #expect(directory.names == ["whole.bin"])
    }

    @Test("resumable: true keeps the partial file of a failed download, and a later call finishes it")
    func resumesLater() async throws {
        let body = patternedBytes(Self.size, seed: 7)
        let server = try RangeServer(body: body, dropAfter: 300_000)
        defer { server.shutdown() }
        let api = client(server, attempts: 1)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.file("movie.bin")

        await #expect(throws: SimpleNetworkingError.self) {
            _ = try await api.get("/file").download(to: destination, resumable: true)
        }
        #expect(directory.names == [".movie.bin.partial", ".movie.bin.partial-validator"])
        let kept = try Data(contentsOf: directory.file(".movie.bin.partial"))
        #expect(!kept.isEmpty && body.starts(with: kept))

        let response = try await api.get("/file").download(to: destination, resumable: true)

        #expect(response.statusCode == 206)
        #expect(try Data(contentsOf: destination) == body)
        #expect(server.rangeFields.first?["Range"] == "bytes=\(kept.count)-")
        #expect(directory.names == ["movie.bin"])
    }

    @Test("A 416 for a partial file that is already the whole file counts as done, as a 200")
    func rangeNotSatisfiableOnCompleteFile() async throws {
        let body = patternedBytes(50_000, seed: 9)
        let server = try RangeServer(body: body)
        defer { server.shutdown() }
        let api = client(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        try body.write(to: directory.file(".done.bin.partial"))
        try Data(#""v1""#.utf8).write(to: directory.file(".done.bin.partial-validator"))

        let response = try await api.get("/file").download(to: directory.file("done.bin"), resumable: true)

        #expect(response.statusCode == 200)
        #expect(response.fileURL == directory.file("done.bin"))
        #expect(try Data(contentsOf: directory.file("done.bin")) == body)
        #expect(server.server.requests.first?.header("Range") == "bytes=50000-")
        #expect(directory.names == ["done.bin"])
    }

    @Test(
        "A validator file that is empty, longer than any validator or broken across lines is not used: the file comes whole",
        arguments: [Data(), Data(repeating: UInt8(ascii: "v"), count: 4_096), Data("\"v1\"\n".utf8)])
    func unusableValidatorFile(validator: Data) async throws {
        let body = patternedBytes(50_000, seed: 4)
        let server = try RangeServer(body: body)
        defer { server.shutdown() }
        let api = client(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        try body.prefix(20_000).write(to: directory.file(".kept.bin.partial"))
        try validator.write(to: directory.file(".kept.bin.partial-validator"))

        let response = try await api.get("/file").download(to: directory.file("kept.bin"), resumable: true)

        #expect(response.statusCode == 200)
        #expect(server.server.requests.first?.header("Range") == nil)
        #expect(try Data(contentsOf: directory.file("kept.bin")) == body)
        #expect(directory.names == ["kept.bin"], "left behind: \(directory.names)")
    }

    @Test("Without resumable, a download that fails for good leaves no partial file")
    func failedDownloadLeavesNothing() async throws {
        let server = try RangeServer(body: patternedBytes(Self.size), dropAfter: 100_000)
        defer { server.shutdown() }
        let api = client(server, attempts: 1)
        defer { api.close() }
        let directory = try ScratchDirectory()

        await #expect(throws: SimpleNetworkingError.self) {
            _ = try await api.get("/file").download(to: directory.file("gone.bin"))
        }
        #expect(directory.names.isEmpty, "left behind: \(directory.names)")
    }
}

@Suite("Download resumption rules")
struct DownloadResumptionRuleTests {
    @Test(
        "Content-Range values: the valid forms are read, anything else is not a range",
        arguments: [
            ("bytes 0-499/1234", 0...499 as ClosedRange<Int64>?, 1234 as Int64?, true),
            ("bytes 500-999/*", 500...999, nil, true),
            ("bytes */1234", nil, 1234, true),
            ("BYTES 1-1/2", 1...1, 2, true),
            ("bytes 5-4/10", nil, nil, false),
            ("bytes 0-10/10", nil, nil, false),
            ("bytes */*", nil, nil, false),
            ("bytes -1-5/10", nil, nil, false),
            ("items 0-1/2", nil, nil, false),
            ("bytes 0-99999999999999999999/1", nil, nil, false),
            ("", nil, nil, false),
        ])
    func contentRange(text: String, range: ClosedRange<Int64>?, length: Int64?, valid: Bool) {
        let parsed = DownloadResumption.ContentRange(text)
        #expect((parsed != nil) == valid)
        if valid {
            #expect(parsed?.range == range)
            #expect(parsed?.length == length)
        }
    }

    @Test(
        "What an answer to a range from byte 100 means",
        arguments: [
            (206, "bytes 100-199/200", "append"),
            (206, "bytes 90-199/200", "refuse"),
            (206, nil, "refuse"),
            (200, nil, "restart"),
            (204, nil, "restart"),
            (416, "bytes */100", "complete"),
            (416, "bytes */150", "refuse"),
            (416, nil, "refuse"),
            (500, nil, "notADownload"),
            (304, nil, "notADownload"),
        ] as [(Int, String?, String)])
    func verdicts(status: Int, contentRange: String?, expected: String) {
        var headers = HTTPHeaders()
        headers["Content-Range"] = contentRange
        let verdict = DownloadResumption.verdict(status: status, headers: headers, partialLength: 100)
        let name =
            switch verdict {
            case .append: "append"
            case .restart: "restart"
            case .complete: "complete"
            case .refuse: "refuse"
            case .notADownload: "notADownload"
            }
        #expect(name == expected)
    }

    @Test(
        "Only bytes stored as they travelled can be resumed: no content coding, or identity",
        arguments: [
            ([], true), (["identity"], true), (["gzip"], false), (["identity, gzip"], false),
            (["br", "identity"], false),
            ([" Identity "], true),
        ] as [([String], Bool)])
    func contentCodings(values: [String], resumable: Bool) {
        let headers = HTTPHeaders(values.map { HTTPHeaders.Field(name: "Content-Encoding", value: $0) })
        #expect(DownloadResumption.hasNoContentCoding(headers) == resumable)
    }

    @Test(
        "Which validators allow a resume",
        arguments: [
            (["ETag": #""abc""#], #""abc""#),
            (["ETag": #"W/"abc""#], nil),
            (["ETag": "abc"], nil),
            (
                ["Last-Modified": "Thu, 26 Nov 2026 10:00:00 GMT", "Date": "Thu, 26 Nov 2026 10:00:01 GMT"],
                "Thu, 26 Nov 2026 10:00:00 GMT"
            ),
            (["Last-Modified": "Thu, 26 Nov 2026 10:00:00 GMT", "Date": "Thu, 26 Nov 2026 10:00:00 GMT"], nil),
            (["Last-Modified": "Thu, 26 Nov 2026 10:00:00 GMT"], nil),
            ([:], nil),
        ] as [([String: String], String?)])
    func validators(headers: [String: String], expected: String?) {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields[name] = value }
        #expect(DownloadResumption.validator(of: fields) == expected)
    }
}
