import Foundation

// The entry to the body decoder for the fuzz target of `FuzzTesting/` only: SPI, not part of the engine's API.

/// What the engine's body decoder made of one body.
@_spi(Fuzzing)
public struct DecodedBody: Sendable, Equatable {
    /// The decoded bytes, up to the limit.
    public var bytes: [UInt8]
    /// The decoder's failure, when the body is not what its coding says.
    public var failure: String?
    /// Whether decoding stopped because the decoded bytes passed the limit.
    public var exceededLimit: Bool
    /// The largest piece the decoder handed over at once.
    public var largestPiece: Int

    /// The largest piece the decoder hands over at once, in bytes.
    public static var pieceSize: Int { ContentDecoder.pieceSize }

    /// Decodes `chunks`, in order, as one body with `contentEncoding`, as the engine does, stopping once more than
    /// `limit` bytes are decoded; `nil` when the engine does not decode that coding.
    public static func decode(_ chunks: [ArraySlice<UInt8>], contentEncoding: String, limit: Int) -> DecodedBody? {
        guard let decoder = ContentDecoder(contentEncoding: contentEncoding) else { return nil }
        var body = DecodedBody(bytes: [], failure: nil, exceededLimit: false, largestPiece: 0)
        do throws(ContentDecoder.Failure) {
            for chunk in chunks {
                decoder.start(Data(chunk))
                while let piece = try decoder.nextPiece() {
                    body.largestPiece = max(body.largestPiece, piece.count)
                    guard piece.count <= limit - body.bytes.count else {
                        body.exceededLimit = true
                        return body
                    }
                    body.bytes.append(contentsOf: piece)
                }
            }
            try decoder.finish()
        } catch {
            body.failure = error.description
        }
        return body
    }
}
