import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

/// Responses written byte for byte that FoundationNetworking reads wrongly or not at all, over the engine: what the
/// engine accepts, what it refuses, and the words it refuses with (<doc:LinuxPlatformNotes>, <doc:SecurityDefaults>).
@Suite("Hostile and unusual responses over the engine")
struct HostileResponseTests {
    /// A response, and what the engine must make of it: the body it delivers, or words its refusal must hold.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: String
        let body: String?
        let refusal: String?

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // A status line without a reason phrase is read (FoundationNetworking refuses it).
        Case(name: "no reason phrase", bytes: "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", body: "ok", refusal: nil),
        Case(
            name: "empty reason phrase", bytes: "HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok", body: "ok", refusal: nil
        ),
        // Trailer fields after a chunked body are dropped and the body delivered (FoundationNetworking ends the
        // process).
        Case(
            name: "trailer fields",
            bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n\r\n"
                + "5\r\nhello\r\n0\r\nX-Checksum: 5d41402a\r\n\r\n",
            body: "hello", refusal: nil),
        // The protocol name is case-sensitive (RFC 9112, section 2.3); libcurl reads any case.
        Case(
            name: "lowercase protocol name", bytes: "Http/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", body: nil,
            refusal: "status line"),
        Case(
            name: "Content-Length repeated with other values",
            bytes: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 5\r\n\r\nhello", body: nil,
            refusal: "repeats Content-Length"),
    ]

    @Test("Each response is read or refused as a client must", arguments: cases)
    func response(_ test: Case) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(faults: [.rawResponse(Data(test.bytes.utf8))]) }
        let transport = AsyncHTTPClientTransport()
        defer { transport.close() }

        let outcome = await transport.outcome(of: HTTPRequest(method: .get, url: server.url("/hostile")))

        switch (outcome, test.body, test.refusal) {
        case (.success(let response), let body?, nil):
            #expect(response.statusCode == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == body)
        case (.failure(.transportFailed(let failure, _)), nil, let refusal?):
            #expect(failure.category == .badServerResponse)
            #expect(failure.description.contains(refusal), "\(failure)")
        default:
            Issue.record("\(test.name): got \(outcome)")
        }
    }
}

extension AsyncHTTPClientTransport {
    /// The response or error of one request with the default options.
    func outcome(of request: HTTPRequest) async -> Result<SimpleResponse, SimpleNetworkingError> {
        do throws(SimpleNetworkingError) {
            return .success(try await send(request, options: TransportOptions(timeout: 10)))
        } catch {
            return .failure(error)
        }
    }
}
