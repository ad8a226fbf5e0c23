import Foundation

// The in-memory entry to the server's request parser, for the fuzz targets of `FuzzTesting/` only: SPI, not part
// of the testing product's API.
extension MockServer {
    /// What the server reads from the bytes a client sends on one connection.
    @_spi(Fuzzing)
    public struct ParsedConnection: Sendable {
        /// The requests read in full, in order, as ``MockServer/requests`` records them.
        public var requests: [RecordedRequest]
        /// The status the server answers an invalid request with before it closes the connection (400, 413, 431
        /// or 501); `nil` when the bytes end between two requests or inside one, or after a request that closes
        /// the connection, where the server closes without answering.
        public var rejectionStatus: Int?
    }

    /// Reads `bytes` as the stream of one connection, in memory, with the parser the server runs on its sockets:
    /// each request's head, then its body as `Content-Length` or chunked framing says, until the bytes end, a
    /// request is invalid, or a request closes the connection (`Connection: close`, or HTTP/1.0 without
    /// `keep-alive`).
    /// - Parameter bytes: What a client sent, as if it then closed the connection.
    /// - Returns: The requests, and the answer to an invalid one.
    @_spi(Fuzzing)
    public static func parseConnection(_ bytes: [UInt8]) -> ParsedConnection {
        var reader = MockServerConnectionReader(bytes: bytes)
        var requests: [RecordedRequest] = []
        while true {
            do throws(MockServerReadFailure) {
                guard let (head, body) = try MockServerParsing.readRequest(from: &reader, beforeBody: { _ in true })
                else { break }
                requests.append(
                    RecordedRequest(
                        method: head.method, target: head.target, headers: head.headers, body: body,
                        httpVersion: head.version, sequenceNumber: requests.count, connectionIndex: 0))
                if !head.keepsAlive { break }
            } catch {
                guard case .invalid(let status) = error else { break }
                return ParsedConnection(requests: requests, rejectionStatus: status)
            }
        }
        return ParsedConnection(requests: requests, rejectionStatus: nil)
    }
}
