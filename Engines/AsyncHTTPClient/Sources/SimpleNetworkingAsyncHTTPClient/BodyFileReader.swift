import AsyncHTTPClient
import Foundation
import NIOCore

/// Reads a body file for ``AsyncHTTPClientTransport`` in pieces, each written to the connection before the next is
/// read, so that at most one piece of the file is in memory.
enum BodyFileReader {
    /// The size of a piece: 256 KiB.
    static let pieceSize = 256 * 1024

    /// The file changed size while it was sent.
    struct FileShrank: Error {}

    /// Sends the first `size` bytes of `file` through `writer`.
    static func send(_ file: URL, size: Int64, to writer: HTTPClient.Body.StreamWriter) async throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var left = size
        while left > 0 {
            try Task.checkCancellation()
            guard let piece = try handle.read(upToCount: Int(min(Int64(pieceSize), left))), !piece.isEmpty else {
                throw FileShrank()
            }
            left -= Int64(piece.count)
            try await writer.write(.byteBuffer(ByteBuffer(bytes: piece))).get()
        }
    }
}
