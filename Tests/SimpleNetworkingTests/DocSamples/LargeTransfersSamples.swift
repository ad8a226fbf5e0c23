import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

func downloadSample(api: SimpleNetworking, folder: URL) async throws -> SimpleResponse {
    // DOC-SAMPLE: LargeTransfers/download
    let destination = folder.appendingPathComponent("archive.zip")
    let response = try await api.get("/archive.zip")
        .downloadProgress { progress in print("\(progress.bytesCompleted) of \(progress.bytesExpected ?? -1) bytes") }
        .download(to: destination)
    print("saved to \(response.fileURL?.path ?? "")")
    // DOC-SAMPLE-END
    return response
}

func linesSample(api: SimpleNetworking) async throws -> [String] {
    var records: [String] = []
    // DOC-SAMPLE: LargeTransfers/lines
    for try await line in api.get("/export.ndjson").lines() where !line.isEmpty {
        records.append(line)  // one JSON value per line
    }
    // DOC-SAMPLE-END
    return records
}

func uploadSample(api: SimpleNetworking, archive: URL, photo: URL) async throws {
    // DOC-SAMPLE: LargeTransfers/upload
    _ = try await api.put("/backups/today").body(fileAt: archive).response()

    var form = MultipartFormData()
    form.append("Ada", name: "name")
    form.append(fileAt: photo, name: "photo", contentType: "image/jpeg")
    _ = try await api.post("/profile").body(multipart: form).response()
    // DOC-SAMPLE-END
}

func progressUpdatesSample(api: SimpleNetworking, file: URL) async throws {
    // DOC-SAMPLE: LargeTransfers/progress-updates
    let request = api.get("/disk.img")
    let updates = request.progressUpdates()
    let watcher = Task {
        for await update in updates { print(update.fractionCompleted.map { "\(Int($0 * 100)) %" } ?? "...") }
    }
    _ = try await request.download(to: file)
    await watcher.value  // the updates end with the request
    // DOC-SAMPLE-END
}

func resumableSample(api: SimpleNetworking, downloads: URL) async throws -> SimpleResponse {
    // DOC-SAMPLE: LargeTransfers/resumable
    let destination = downloads.appendingPathComponent("ubuntu.iso")
    do {
        _ = try await api.get("/releases/ubuntu.iso").download(to: destination, resumable: true)
    } catch {
        // The connection dropped and the retries ran out: the bytes received so far are kept.
    }
    // Later, even after a restart: only the rest is requested.
    let response = try await api.get("/releases/ubuntu.iso").download(to: destination, resumable: true)
    print(response.statusCode)  // 206 when it resumed, 200 when it had to start again
    // DOC-SAMPLE-END
    return response
}

// DOC-SAMPLE: LargeTransfers/progress-model
@MainActor final class UploadModel {
    var sent = 0.0
    var received: Int64 = 0

    func upload(_ photo: URL, with api: SimpleNetworking) async throws {
        _ = try await api.post("/photos").body(fileAt: photo)
            .onMainActor(progress: { progress in
                switch progress.direction {
                case .upload: self.sent = progress.fractionCompleted ?? 0
                case .download: self.received = progress.bytesCompleted
                }
            })
            .response()
    }
}
// DOC-SAMPLE-END

@Suite("The LargeTransfers article's samples run")
struct ReadmeTransferSampleTests {
    @Test("Download, lines, uploads and progress updates do what the LargeTransfers article says")
    func transfers() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in
            switch request.path {
            case "/archive.zip", "/disk.img": return MockResponse(body: Data(repeating: 7, count: 300_000))
            case "/export.ndjson": return .text("{\"n\":1}\n\n{\"n\":2}\n")
            default: return .status(204)
            }
        }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let folder = try ScratchDirectory()
        let archive = folder.file("backup.tar")
        let photo = folder.file("photo.jpg")
        try Data("tar".utf8).write(to: archive)
        try Data("jpg".utf8).write(to: photo)

        let response = try await downloadSample(api: api, folder: folder.url)
        #expect(try Data(contentsOf: folder.file("archive.zip")).count == 300_000)
        #expect(response.fileURL == folder.file("archive.zip"))
        #expect(try await linesSample(api: api) == [#"{"n":1}"#, #"{"n":2}"#])
        try await uploadSample(api: api, archive: archive, photo: photo)
        #expect(server.requests.first { $0.path == "/backups/today" }?.bodyText == "tar")
        #expect(server.requests.first { $0.path == "/profile" }?.multipartParts?.map(\.text) == ["Ada", "jpg"])
        try await progressUpdatesSample(api: api, file: folder.file("disk.img"))
        #expect(try Data(contentsOf: folder.file("disk.img")).count == 300_000)
    }

    @Test("The resumable sample keeps the first attempt's bytes and finishes with a 206")
    func resumable() async throws {
        let body = patternedBytes(500_000, seed: 11)
        let server = try RangeServer(body: body, dropAfter: 120_000)
        defer { server.shutdown() }
        let api = SimpleNetworking(
            baseURL: server.server.baseURL,
            configuration: {
                var configuration = SimpleNetworking.Configuration()
                configuration.retryPolicy = .never
                return configuration
            }())
        defer { api.close() }
        let folder = try ScratchDirectory()

        let response = try await resumableSample(api: api, downloads: folder.url)

        #expect(response.statusCode == 206)
        #expect(try Data(contentsOf: folder.file("ubuntu.iso")) == body)
        #expect(server.rangeFields.first?["Range"]?.hasPrefix("bytes=") == true)
    }

    @Test("The upload model's progress reaches the whole upload, on the main actor")
    @MainActor func progressModel() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(201) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let folder = try ScratchDirectory()
        let photo = folder.file("photo.jpg")
        try Data(repeating: 1, count: 200_000).write(to: photo)
        let model = UploadModel()

        try await model.upload(photo, with: api)

        #expect(await eventually { model.sent == 1 })
        #expect(server.requests.first?.body.count == 200_000)
    }
}
