import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// Failures keep their reason over URLSession: an untrusted certificate is a TLS failure that says which check failed,
/// and a response FoundationNetworking cannot read says so, not something else (<doc:LinuxPlatformNotes>).
@Suite("Failure reasons over URLSession")
struct FailureReasonTests {
    @Test(
        "A self-signed certificate is tlsFailure, not retried, and the description says why",
        .enabled(if: TLSTestServer.isAvailable, "openssl or python3 is not installed"))
    func untrustedCertificate() async throws {
        // One connection: a retry, were there one, would find the port closed and fail otherwise.
        let server = try await TLSTestServer.selfSigned()
        let api = makeLoopbackClient(server.baseURL) { $0.retryPolicy = .default }
        defer { api.close() }

        let error = await failure(of: api.get("/secure").timeout(20))

        let failure = try #require(error?.transportFailure, "\(String(describing: error))")
        #expect(failure.category == .tlsFailure, "\(failure)")
        #expect(error?.attempts.count == 1, "a TLS failure is not retried: \(String(describing: error?.attempts))")
        #if canImport(FoundationNetworking)
            // Before: "the request failed (URLError -1)", category other.
            #expect(failure.description.contains("unknown issuer"), "\(failure)")
            #expect(failure.description.contains("libcurl: SSL certificate problem"), "\(failure)")
        #endif
        api.close()
        await server.finish()
    }

    @Test("A status line without a reason phrase: refused by FoundationNetworking in its own words, read elsewhere")
    func statusLineWithoutReason() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in
            MockResponse(faults: [.rawResponse(Data("HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok".utf8))])
        }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.get("/terse"))

        #if canImport(FoundationNetworking)
            let failure = try #require(error?.transportFailure, "\(String(describing: error))")
            #expect(failure.category == .badServerResponse)
            // Before: "a line without a colon, a NUL byte, ...", which is not what happened.
            #expect(failure.description.contains("reason phrase"), "\(failure)")
            #expect(!failure.description.contains("without a colon"), "\(failure)")
        #else
            #expect(error == nil, "\(String(describing: error))")
        #endif
    }

    #if canImport(FoundationNetworking)
        @Test("Over URLSession on Linux a status line's protocol name is read in any case, as the articles say")
        func lowercaseProtocolName() async throws {
            let server = try MockServer()
            defer { server.shutdown() }
            let bytes = Data("Http/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
            server.route { _ in MockResponse(faults: [.rawResponse(bytes)]) }
            let api = makeLoopbackClient(server)
            defer { api.close() }

            // libcurl reads "Http" as "HTTP" and URLSession keeps no version to check (<doc:SecurityDefaults> states
            // this exception; the engine's tests show it refused there). Should this start failing, the exception goes.
            let response = try await api.get("/case").response()
            #expect(response.statusCode == 200)
        }
    #endif
}
