import CZlibShim
import Foundation

/// Decodes a gzip or deflate response body with zlib, one bounded piece at a time, for the AsyncHTTPClient engine's
/// `ResponseStreamer`.
///
/// The body is decoded here rather than in AsyncHTTPClient's pipeline so that nothing decodes ahead of the reader: a
/// compressed piece from the network is decoded into pieces of at most ``pieceSize`` bytes, and the next one is made
/// only when the last has been counted against the size limit and taken. A compression bomb therefore never holds more
/// than one piece beyond what the reader keeps, and a response without `Content-Encoding` costs nothing.
///
/// gzip bodies may hold several members one after the other (RFC 1952), which are decoded as one body; `deflate` is
/// read as a zlib stream (RFC 1950), or as raw deflate when the body does not start with a zlib header, as some
/// servers send it. Bytes after the end of a deflate stream, a corrupt stream and a body that ends inside a stream
/// fail with ``Failure``.
///
/// Not thread-safe: one response's calls come one after the other (see `ResponseStreamer`).
package final class ContentDecoder {
    /// A body that is not what its `Content-Encoding` says.
    package struct Failure: Error, Hashable, CustomStringConvertible {
        /// What is wrong, in words a person can act on.
        package let description: String
    }

    /// The codings decoded here.
    private enum Coding {
        case gzip, deflate
    }

    /// The largest decoded piece handed over at once, in bytes.
    package static let pieceSize = 64 * 1024

    /// The coding being decoded.
    private let coding: Coding
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer
    /// Whether zlib's state exists (made on the first input, when a deflate body's format can be seen).
    private var started = false
    /// Whether the current stream or gzip member reached its end.
    private var ended = false
    /// Whether zlib may hold decoded bytes it could not write yet (its last piece filled the output buffer).
    private var draining = false
    /// The compressed piece being decoded, and how much of it zlib has read.
    private var input = Data()
    private var consumed = 0
    /// The fault found in the stream, thrown once what was decoded before it has been handed over.
    private var failure: Failure?
    /// The first byte of a deflate body that came alone: its format is told by its first two bytes.
    private var held = Data()

    /// A decoder for a body with `contentEncoding`, or `nil` when the body is not gzip or deflate (`identity`,
    /// codings this engine does not decode, and several codings stacked are handed over as they came).
    package init?(contentEncoding: String) {
        switch contentEncoding.trimmingCharacters(in: .whitespaces).lowercased() {
        case "gzip", "x-gzip": coding = .gzip
        case "deflate": coding = .deflate
        default: return nil
        }
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = .allocate(byteCount: Self.pieceSize, alignment: 1)
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        output.deallocate()
    }

    /// Starts decoding `piece`, a piece of the compressed body as it came; ``nextPiece()`` then returns its decoded
    /// bytes. Call it only once ``nextPiece()`` has returned `nil` for the last piece.
    package func start(_ piece: Data) {
        input = held.isEmpty ? piece : held + piece
        held = Data()
        consumed = 0
    }

    /// The next decoded piece of what ``start(_:)`` was given, at most ``pieceSize`` bytes, or `nil` once all of it
    /// has been read.
    /// - Throws: ``Failure`` when the stream is corrupt, or bytes follow the end of a deflate stream.
    package func nextPiece() throws(Failure) -> Data? {
        if let failure { throw failure }
        while consumed < input.count || draining {
            if !started {
                guard coding == .gzip || input.count - consumed >= 2 else {
                    held = input[(input.startIndex + consumed)...]
                    consumed = input.count
                    return nil
                }
                try begin()
            } else if ended {
                // Another gzip member follows the last; a deflate stream has one end.
                guard coding == .gzip else {
                    throw Failure(description: "the deflate body has bytes after the end of its stream")
                }
                guard inflateReset(stream) == Z_OK else { throw Self.failure(of: stream, code: Z_STREAM_ERROR) }
                ended = false
            }
            let (code, read, produced) = inflateStep()
            consumed += read
            // A full piece: zlib may hold more output for the input it has read, even with no input left.
            draining = produced == output.count
            switch code {
            case Z_STREAM_END:
                ended = true
                draining = false
            case Z_OK, Z_BUF_ERROR:
                // Z_BUF_ERROR: no progress was possible, which is expected only with no input left.
                if read == 0, produced == 0, consumed < input.count {
                    throw Failure(description: "the \(coding) body could not be decoded")
                }
            default:
                // What was decoded before the fault is handed over first, whatever the body's chunking.
                failure = Self.failure(of: stream, code: code)
                if produced == 0, let failure { throw failure }
            }
            if produced > 0 { return Data(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
        }
        return nil
    }

    /// One call of `inflate` on the input left, into the output buffer: its result, and how many bytes it read and
    /// wrote.
    private func inflateStep() -> (code: Int32, read: Int, produced: Int) {
        input.withUnsafeBytes { bytes in
            let base = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + consumed }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: base)
            stream.pointee.avail_in = UInt32(clamping: bytes.count - consumed)
            stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.pointee.avail_out = UInt32(output.count)
            let available = stream.pointee.avail_in
            let code = inflate(stream, Z_NO_FLUSH)
            let read = Int(available - stream.pointee.avail_in)
            let produced = output.count - Int(stream.pointee.avail_out)
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
            return (code, read, produced)
        }
    }

    /// Checks the end of the body: a stream that was started must have ended.
    /// - Throws: ``Failure`` when the body ended inside a stream.
    package func finish() throws(Failure) {
        guard started && !ended || !held.isEmpty else { return }
        throw Failure(description: "the \(coding) body ended before its stream did (the body was cut short)")
    }

    /// Makes zlib's state for the stream's format: gzip (or zlib, for servers that mislabel it) for gzip; for
    /// deflate, a zlib stream when the first two bytes are a zlib header, raw deflate otherwise. For deflate, call it
    /// only with two bytes of input left.
    private func begin() throws(Failure) {
        let windowBits: Int32
        switch coding {
        case .gzip:
            windowBits = 15 + 32
        case .deflate:
            let first = input[input.startIndex + consumed]
            let second = input[input.startIndex + consumed + 1]
            let zlibHeader = first & 0x0F == 8 && first >> 4 <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
            windowBits = zlibHeader ? 15 : -15
        }
        let code = czlibshim_inflate_init(stream, windowBits)
        guard code == Z_OK else { throw Self.failure(of: stream, code: code) }
        started = true
    }

    /// The failure for zlib's `code`, with zlib's message when it gave one.
    private static func failure(of stream: UnsafeMutablePointer<z_stream>, code: Int32) -> Failure {
        let reason: String
        switch code {
        case Z_MEM_ERROR: reason = "zlib ran out of memory"
        case Z_NEED_DICT: reason = "the stream needs a preset dictionary"
        default: reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(code)"
        }
        return Failure(description: "the compressed body is corrupt (\(reason))")
    }
}
