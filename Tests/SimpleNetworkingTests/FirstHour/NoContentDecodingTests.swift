import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("NoContent decodes for a plain request")
struct NoContentDecodingTests {
    private struct Profile: Decodable, Sendable {
        var id: Int
    }

    @Test("decode(NoContent.self) on a 204 of a plain request returns NoContent")
    func noContentOn204() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .status(204) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        #expect(try await api.delete("/profiles/1").decode(NoContent.self) == NoContent())
        #expect(try await api.put("/profiles/1").decoding(NoContent.self).value() == NoContent())
        #expect(try await api.get("/x").transform { try $0.decode(NoContent.self) }.value() == NoContent())
        #expect(server.requestCount == 3)
    }

    @Test("NoContent ignores a body; an empty body where a value is expected is still decodingFailed")
    func bodyIgnoredAndEmptyStillFailsForValues() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { request in request.path == "/empty" ? .status(200) : .json(#"{"ignored": true}"#) }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        #expect(try await api.get("/body").decode(NoContent.self) == NoContent())
        await #expect {
            _ = try await api.get("/empty").decode(Profile.self)
        } throws: { error in
            guard case .decodingFailed(_, let reason, _) = error as? SimpleNetworkingError else { return false }
            return reason == "the response body is empty"
        }
    }
}
