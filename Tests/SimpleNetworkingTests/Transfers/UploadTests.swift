import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Uploads from a file and from memory")
struct UploadTests {
    @Test(
        "body(fileAt:) sends 3 MiB streamed from disk, byte for byte, with the method chosen and upload progress",
        arguments: [HTTPMethod.put, .post])
    func uploadsFile(method: HTTPMethod) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(201) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let file = directory.file("upload.bin")
        let body = patternedBytes(3 * 1024 * 1024, seed: 9)
        try body.write(to: file)
        let values = Locked<[TransferProgress]>([])

        let response = try await api.request(method, "/files/upload.bin")
            .body(fileAt: file)
            .progress { value in values.withLock { $0.append(value) } }
            .response()

        #expect(response.statusCode == 201)
        let recorded = try #require(server.requests.first)
        #expect(recorded.method == method.rawValue)
        #expect(recorded.header("Content-Type") == "application/octet-stream")
        #expect(recorded.body.count == body.count)
        #expect(recorded.body == body)
        #expect(
            await eventually { values.current.contains { $0.direction == .upload && $0.bytesCompleted == body.count } })
        let uploads = values.current.filter { $0.direction == .upload }
        #expect(zip(uploads, uploads.dropFirst()).allSatisfy { $0.bytesCompleted <= $1.bytesCompleted })
        #expect(uploads.last?.bytesExpected == Int64(body.count))
    }

    @Test("A Data body reports upload progress that ends at its size")
    func dataUploadProgress() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let body = patternedBytes(3 * 1024 * 1024, seed: 1)
        let values = Locked<[TransferProgress]>([])

        _ = try await api.post("/data").body(body).progress { value in values.withLock { $0.append(value) } }.response()

        #expect(server.requests.first?.body == body)
        #expect(await eventually { values.current.last { $0.direction == .upload }?.fractionCompleted == 1 })
    }

    @Test("A body file that cannot be read fails with invalidRequest, and nothing is sent")
    func missingFile() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).bin")

        let error = await failure(of: api.post("/upload").body(fileAt: missing))

        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(missing.lastPathComponent))
        #expect(server.requestCount == 0)
    }

    @Test("A 307 redirect sends the file again to the new location, whole")
    func redirectResendsFile() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.path == "/old" ? .redirect(to: "/new", status: 307) : .status(200) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let file = directory.file("again.bin")
        try patternedBytes(2 * 1024 * 1024, seed: 4).write(to: file)

        _ = try await api.post("/old").body(fileAt: file).response()

        #expect(server.requests.map(\.path) == ["/old", "/new"])
        #expect(server.requests.last?.body == patternedBytes(2 * 1024 * 1024, seed: 4))
    }

    @Test("GET cannot carry a file body over URLSession: unsupportedByTransport before anything is sent")
    func getRefusesFile() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let file = directory.file("x.bin")
        try Data("x".utf8).write(to: file)

        let error = await failure(of: api.get("/x").body(fileAt: file))

        guard case .unsupportedByTransport(let reason) = error else {
            Issue.record("expected unsupportedByTransport, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("URLSession") && reason.contains("GET"))
        #expect(server.requestCount == 0)
    }
}

@Suite("Multipart forms")
struct MultipartTests {
    @Test("Fields and files arrive as parts the MockServer reads back: names, filenames, types, bytes")
    func partsReadBack() async throws {
        var form = MultipartFormData()
        form.append("Ada Lovelace", name: "name")
        form.append(Data([0, 1, 2, 0xFF]), name: "blob", filename: "blob.bin")
        form.append(Data("{}".utf8), name: "meta", contentType: .json)

        let recorded = try await Self.send(form)

        #expect(recorded.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
        let parts = try #require(recorded.multipartParts)
        #expect(parts.map(\.name) == ["name", "blob", "meta"])
        #expect(parts.map(\.filename) == [nil, "blob.bin", nil])
        #expect(parts.map(\.contentType) == [nil, "application/octet-stream", "application/json"])
        #expect(parts[0].text == "Ada Lovelace")
        #expect(parts[1].body == Data([0, 1, 2, 0xFF]))
        #expect(parts[2].text == "{}")
    }

    @Test(
        "Names and filenames are escaped as browsers do: quotes, CR and LF percent-encoded, UTF-8 kept",
        arguments: [
            ("plain", "plain"), ("a\"b", "a%22b"), ("line\r\nInjected: yes", "line%0D%0AInjected: yes"),
            ("résumé 履歴書.pdf", "résumé 履歴書.pdf"),
        ])
    func escaping(raw: String, sent: String) async throws {
        var form = MultipartFormData()
        form.append("v", name: raw)
        form.append(Data("f".utf8), name: "file", filename: raw)

        let parts = try #require(try await Self.send(form).multipartParts)
        #expect(parts.count == 2)
        #expect(parts.first?.name == sent)
        #expect(parts.last?.filename == sent)
        #expect(parts.first?.text == "v")
    }

    @Test("A boundary that a part holds is never used: a part made of likely boundaries still reads back")
    func boundaryNotInParts() async throws {
        var form = MultipartFormData()
        form.append("--SimpleNetworking-\r\n--\r\n\r\n--", name: "tricky")

        let recorded = try await Self.send(form)
        let boundary = try #require(recorded.header("Content-Type")?.components(separatedBy: "boundary=").last)
        #expect(!"--SimpleNetworking-\r\n--\r\n\r\n--".contains(boundary))
        #expect(recorded.multipartParts?.first?.text == "--SimpleNetworking-\r\n--\r\n\r\n--")
    }

    @Test("Small file parts are read into the body: an empty file is an empty part, a short one its bytes")
    func smallFileParts() async throws {
        let directory = try ScratchDirectory()
        let empty = directory.file("empty.txt")
        let short = directory.file("short.bin")
        try Data().write(to: empty)
        try Data([7, 0, 9]).write(to: short)
        var form = MultipartFormData()
        form.append(fileAt: empty, name: "empty")
        form.append(fileAt: short, name: "short")

        let recorded = try await Self.send(form)

        let parts = try #require(recorded.multipartParts)
        #expect(parts.map(\.name) == ["empty", "short"])
        #expect(parts.map(\.filename) == ["empty.txt", "short.bin"])
        #expect(parts.map(\.body) == [Data(), Data([7, 0, 9])])
    }

    @Test("A file part above the streaming threshold is streamed from disk and arrives whole")
    func largeFilePart() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(200) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let file = directory.file("video.mp4")
        let bytes = patternedBytes(3 * 1024 * 1024, seed: 5)
        try bytes.write(to: file)
        var form = MultipartFormData()
        form.append("clip", name: "title")
        form.append(fileAt: file, name: "video", contentType: "video/mp4")
        let values = Locked<[TransferProgress]>([])

        _ = try await api.post("/videos").body(multipart: form).progress { value in values.withLock { $0.append(value) }
        }
        .response()

        let parts = try #require(server.requests.first?.multipartParts)
        #expect(parts.map(\.name) == ["title", "video"])
        #expect(parts.last?.filename == "video.mp4")
        #expect(parts.last?.contentType == "video/mp4")
        #expect(parts.last?.body == bytes)
        #expect(await eventually { values.current.last { $0.direction == .upload }?.fractionCompleted == 1 })
    }

    @Test(
        "Python's standard-library email parser reads the same parts, byte for byte",
        .enabled(if: MultipartTests.python3 != nil, "python3 is not installed"))
    func pythonReadsParts() async throws {
        let python = try #require(Self.python3)
        let directory = try ScratchDirectory()
        let file = directory.file("data.bin")
        let bytes = patternedBytes(2 * 1024 * 1024, seed: 2)
        try bytes.write(to: file)
        var form = MultipartFormData()
        form.append("Ada", name: "name")
        form.append(Data("x\r\ny".utf8), name: "notes", filename: "na\"me.txt", contentType: .plainText)
        form.append(fileAt: file, name: "data")

        let recorded = try await Self.send(form)
        let message = directory.file("message")
        let head = Data("Content-Type: \(recorded.header("Content-Type") ?? "")\r\n\r\n".utf8)
        try (head + recorded.body).write(to: message)
        // Prints each part's name, filename and type, and writes its decoded bytes to part-<n> beside the message.
        // From bytes: message_from_binary_file turns CRLF inside the parts into LF.
        let script = """
            import email, email.policy, os, sys
            path = sys.argv[1]
            message = email.message_from_bytes(open(path, 'rb').read(), policy=email.policy.HTTP)
            for number, part in enumerate(message.iter_parts()):
                open(os.path.join(os.path.dirname(path), 'part-%d' % number), 'wb').write(part.get_payload(decode=True))
                print(part.get_param('name', header='content-disposition'), part.get_filename(), part.get_content_type(),
                      sep='|')
            """
        let child = try await runChild(python, ["-c", script, message.path])

        #expect(child.status == 0)
        #expect(
            child.output.split(separator: "\n") == [
                "name|None|text/plain", "notes|na%22me.txt|text/plain", "data|data.bin|application/octet-stream",
            ])
        #expect(try Data(contentsOf: directory.file("part-0")) == Data("Ada".utf8))
        #expect(try Data(contentsOf: directory.file("part-1")) == Data("x\r\ny".utf8))
        #expect(try Data(contentsOf: directory.file("part-2")) == bytes)
    }

    /// Sends `form` in a POST to a server of its own and returns the request the server recorded.
    static func send(_ form: MultipartFormData) async throws -> RecordedRequest {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(200) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        _ = try await api.post("/form").body(multipart: form).response()
        return try #require(server.requests.first)
    }

    static let python3: URL? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map {
            String($0) + "/python3"
        }
        return (path + ["/usr/bin/python3"]).first { FileManager.default.isExecutableFile(atPath: $0) }
            .map { URL(fileURLWithPath: $0) }
    }()
}
