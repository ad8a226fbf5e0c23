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
