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
        let folder = destination.deletingLastPathComponent().path
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["archive.zip"])
    }
}
