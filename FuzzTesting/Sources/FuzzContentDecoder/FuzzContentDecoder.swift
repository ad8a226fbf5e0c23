import FuzzHarness
@_spi(Fuzzing) import SimpleNetworkingContentDecoding

/// The AsyncHTTPClient engine's gzip and deflate body decoder (through `DecodedBody.decode(_:contentEncoding:limit:)`,
/// SPI) on any body.
///
/// Invariant: no trap and no endless loop; no piece handed over is larger than `DecodedBody.pieceSize`, and no more
/// than the limit is kept; the same stream whatever the chunking (the body whole, cut in two at one position, and cut
/// every few bytes): of any two results one's bytes begin the other's, and when none passed the limit they decoded the
/// same bytes and agree on whether the body is valid.
///
/// Input: byte 0 chooses the coding (even: gzip, odd: deflate), bytes 1-2 the position of the cut (little-endian,
/// modulo the body's length plus 1), byte 3 the size of the small chunks (1 to 64); the rest is the body. The limit is
/// 4 MiB, so that a bomb stops soon.
@main
enum FuzzContentDecoder: FuzzTarget {
    static let limit = 4 * 1024 * 1024

    static func check(_ input: FuzzInput) {
        let header = Array(input.bytes.prefix(4)) + Array(repeating: 0, count: max(0, 4 - input.bytes.count))
        let body = Array(input.bytes.dropFirst(4))
        let encoding = header[0] % 2 == 0 ? "gzip" : "deflate"
        let cut = (Int(header[1]) | Int(header[2]) << 8) % (body.count + 1)
        let step = Int(header[3] % 64) + 1

        let chunkings: [[ArraySlice<UInt8>]] = [
            [body[...]],
            [body[..<cut], body[cut...]],
            stride(from: 0, to: body.count, by: step).map { body[$0..<min($0 + step, body.count)] },
        ]
        let results = chunkings.compactMap { DecodedBody.decode($0, contentEncoding: encoding, limit: limit) }
        Fuzzer.require(results.count == 3, "\(encoding) is decoded")
        for result in results {
            Fuzzer.require(
                result.largestPiece <= DecodedBody.pieceSize,
                "a piece fits \(DecodedBody.pieceSize) bytes: \(result.largestPiece)")
            Fuzzer.require(result.bytes.count <= limit, "no more than the limit is kept: \(result.bytes.count)")
        }
        for (index, first) in results.enumerated() {
            for second in results.dropFirst(index + 1) {
                let shorter = min(first.bytes.count, second.bytes.count)
                Fuzzer.require(
                    first.bytes.prefix(shorter) == second.bytes.prefix(shorter), "the same stream in any chunking")
            }
        }
        if !results.contains(where: \.exceededLimit) {
            Fuzzer.require(
                Set(results.map(\.bytes)).count == 1, "the same bytes in any chunking (cut \(cut), step \(step))")
            Fuzzer.require(
                Set(results.map { $0.failure == nil }).count == 1,
                "valid or not in any chunking (cut \(cut), step \(step)): \(results.map(\.failure))")
        }
    }
}
