import Foundation

/// Reads the body of a stored entry (``CacheStorage/openBody(of:)``), whole or in chunks. The body is the one the
/// head was stored with, even if the entry is replaced or removed while it is read: on disk the reader holds the
/// file open, and a replaced file is renamed over, never written into.
///
/// Used by one task at a time; a file is closed when the reader is released.
package final class CacheBodyReader {
    private enum Source {
        case bytes(Data)
        case file(Int32)
    }

    /// The body's length in bytes.
    package let length: Int
    private let source: Source
    private var offset = 0

    /// A reader of a body in memory.
    /// - Parameter bytes: The body.
    package init(bytes: Data) {
        length = bytes.count
        source = .bytes(bytes)
    }

    /// A reader of an open file of `length` bytes, which it closes when released.
    /// - Parameters:
    ///   - descriptor: The file, at its start.
    ///   - length: Its size.
    init(descriptor: Int32, length: Int) {
        self.length = length
        source = .file(descriptor)
    }

    deinit {
        if case .file(let descriptor) = source { close(descriptor) }
    }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { offset == length }

    /// The next bytes of the body.
    /// - Parameter maximumCount: The most bytes to return; at least 1.
    /// - Returns: Up to `maximumCount` bytes; `nil` at the end of the body.
    /// - Throws: ``CacheReadError`` when the file cannot be read or ends before the body does.
    package func read(maximumCount: Int = 64 * 1024) throws(CacheReadError) -> Data? {
        guard offset < length else { return nil }
        let count = min(max(maximumCount, 1), length - offset)
        switch source {
        case .bytes(let bytes):
            let start = bytes.startIndex + offset
            offset += count
            return bytes.subdata(in: start..<(start + count))
        case .file(let descriptor):
            var chunk = Data(count: count)
            let read = chunk.withUnsafeMutableBytes { CacheFiles.readSome(descriptor, into: $0) }
            guard read >= 0 else { throw .unreadable }
            guard read > 0 else { throw .endedEarly }
            offset += read
            if read < count { chunk.removeSubrange(read...) }
            return chunk
        }
    }

    /// The rest of the body, all at once.
    /// - Returns: The bytes not read yet; the whole body for a new reader.
    /// - Throws: ``CacheReadError`` when the file cannot be read or ends before the body does.
    package func readAll() throws(CacheReadError) -> Data {
        switch source {
        case .bytes(let bytes):
            defer { offset = length }
            return offset == 0 ? bytes : bytes.subdata(in: (bytes.startIndex + offset)..<bytes.endIndex)
        case .file(let descriptor):
            guard let rest = CacheFiles.readExactly(descriptor, count: length - offset) else { throw .endedEarly }
            offset = length
            return rest
        }
    }
}

/// Why a stored body could not be read.
package enum CacheReadError: Error, Sendable, Equatable {
    /// Reading the file failed.
    case unreadable
    /// The file ended before the body's length: it was changed in place by something other than the cache.
    case endedEarly
}
