import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Basic authorization, and downloads into missing folders")
struct BasicAuthorizationAndDownloadFolderTests {
    @Test("basicAuthorization(user:password:) sends Authorization: Basic, redacted in the cURL description")
    func basicAuthorizationIsSentAndRedacted() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let request = api.get("/account").basicAuthorization(user: "ada", password: "s3cret:é")
        _ = try await request.response()

        // "ada:s3cret:é" in UTF-8, in Base64.
        #expect(server.requests.first?.header("Authorization") == "Basic YWRhOnMzY3JldDrDqQ==")
        let curl = try request.cURLDescription(on: api)
        #expect(curl.contains("Authorization: <redacted>"), "\(curl)")
        #expect(!curl.contains("YWRh"), "\(curl)")
    }

    @Test("A user name with a colon, or a control character, is invalidRequest and nothing is sent")
    func unusableCredentialsAreRefused() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        for (user, password) in [("a:b", "pw"), ("ada", "line\nbreak")] {
            let error = await failure(of: api.get("/account").basicAuthorization(user: user, password: password))
            guard case .invalidRequest(let reason) = error else {
                Issue.record("expected invalidRequest, got \(String(describing: error))")
                continue
            }
            #expect(!reason.contains(password), "the reason must not show the password: \(reason)")
        }
        #expect(server.requestCount == 0)
    }

    @Test("download(to:) creates the missing folders of its destination")
    func downloadCreatesFolders() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: Data("archive".utf8)) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        let destination = directory.url.appendingPathComponent("a/b/c/archive.zip")

        let response = try await api.get("/archive.zip").download(to: destination)

        #expect(response.fileURL == destination)
        #expect(try Data(contentsOf: destination) == Data("archive".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.deletingLastPathComponent().path)
            == ["archive.zip"])
    }

    @Test("A destination whose folder is a file fails with fileFailed, naming the file only")
    func folderThatIsAFileFails() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(body: Data("archive".utf8)) }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        let directory = try ScratchDirectory()
        try Data("in the way".utf8).write(to: directory.file("blocked"))

        do {
            _ = try await api.get("/archive.zip").download(to: directory.url.appendingPathComponent("blocked/x.zip"))
            Issue.record("the download succeeded")
        } catch .fileFailed(let reason) {
            #expect(reason.contains("x.zip") && !reason.contains(directory.url.path), "\(reason)")
        }
    }
}
