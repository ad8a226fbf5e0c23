import Foundation

// The entry to the disk cache's reading of its files, for the fuzz targets of `FuzzTesting/` only: SPI, not part of
// the library's API.
extension HTTPCache {
    /// What the cache made of one file placed in its folder as an entry's head.
    @_spi(Fuzzing)
    public struct EntryFileReport: Sendable {
        /// Why the bytes are not a head; `nil` when they are one.
        public var formatError: String?
        /// The body length the head states; `nil` when the bytes are not a head.
        public var bodyLength: Int?
        /// The bytes the head encodes to again; `nil` when the bytes are not a head.
        public var reencoded: [UInt8]?
        /// Whether ``reencoded`` reads back as an entry equal to the one first read.
        public var reencodedReadsBackEqual: Bool
        /// Whether the file was given the name of its entry's digest (else another name the cache writes).
        public var placedUnderItsOwnName: Bool
        /// The length of the body file placed beside it; `nil` when none was.
        public var bodyFileLength: Int?
        /// The most bytes one entry may take in the storage the folder is opened with.
        public var maximumEntryBytes: Int
        /// Whether the storage opened on the folder holds the entry the bytes describe.
        public var isStored: Bool
        /// The storage's size once the folder was read.
        public var storedBytes: Int
        /// Whether the head file is still in the folder once it was read.
        public var headFileKept: Bool
        /// Whether the body file is still in the folder once it was read.
        public var bodyFileKept: Bool
        /// Whether the body opened through the storage is the body file's content; `nil` when not stored.
        public var bodyReadsBack: Bool?
        /// Whether the entry, stored again through the storage in an empty folder, reads back equal (its body's
        /// number aside), its body too; `nil` when the bytes are not a head or it is too large to store.
        public var storesAndReadsBack: Bool?
    }

    /// Places `bytes` in an emptied `folder` as a head file, with a body file beside it, opens a disk storage on the
    /// folder, and reports what it read, kept, removed and answered.
    /// - Parameters:
    ///   - bytes: The head file's content: any bytes.
    ///   - folder: A scratch folder, emptied first.
    ///   - underItsOwnName: Whether the file takes the name of its entry's digest (when the bytes are a head), or
    ///     another name of the cache's.
    ///   - bodyLengthChange: The body file's length less the head's stated length (a body file of at most 64 KiB
    ///     is written); `nil` for no body file.
    /// - Returns: The report.
    @_spi(Fuzzing)
    public static func checkEntryFile(
        _ bytes: [UInt8], in folder: URL, underItsOwnName: Bool, bodyLengthChange: Int?
    ) -> EntryFileReport {
        let manager = FileManager.default
        try? manager.removeItem(at: folder)
        try? manager.createDirectory(at: folder, withIntermediateDirectories: true)
        let maximumBytes = 8 << 20
        var report = EntryFileReport(
            formatError: nil, bodyLength: nil, reencoded: nil, reencodedReadsBackEqual: false,
            placedUnderItsOwnName: false, bodyFileLength: nil, maximumEntryBytes: maximumBytes / 8, isStored: false,
            storedBytes: 0, headFileKept: false, bodyFileKept: false, bodyReadsBack: nil, storesAndReadsBack: nil)

        var entry: CacheEntry?
        do {
            let decoded = try CacheEntry(decodingHead: bytes)
            entry = decoded
            report.bodyLength = decoded.bodyLength
            let again = try? decoded.encodedHead()
            report.reencoded = again
            report.reencodedReadsBackEqual = again.flatMap { try? CacheEntry(decodingHead: $0) } == decoded
        } catch {
            report.formatError = "\(error)"
        }

        let fallback = String(repeating: "0", count: 32)
        let digest = underItsOwnName ? entry.map { CacheFileName.digest(of: $0) } ?? fallback : fallback
        report.placedUnderItsOwnName = entry != nil && underItsOwnName
        let headFile = folder.appendingPathComponent(CacheFileName.head(digest))
        let bodyFile = folder.appendingPathComponent(CacheFileName.body(digest, bodyID: entry?.bodyID ?? 0))
        let body: Data? = bodyLengthChange.map { change in
            let length = max(0, min((entry?.bodyLength ?? 0) + change, 64 * 1024))
            return Data((0..<length).map { UInt8(truncatingIfNeeded: $0) })
        }
        try? Data(bytes).write(to: headFile)
        if let body { try? body.write(to: bodyFile) }
        report.bodyFileLength = body?.count

        let storage = DiskCacheStorage(directory: folder, maximumBytes: maximumBytes)
        report.storedBytes = storage.storedBytes
        report.headFileKept = manager.fileExists(atPath: headFile.path)
        report.bodyFileKept = manager.fileExists(atPath: bodyFile.path)
        if let entry, storage.variants(of: entry.key).contains(entry) {
            report.isStored = true
            report.bodyReadsBack = storage.body(of: entry) == body
        }

        if let entry, let head = try? entry.encodedHead(), head.count <= maximumBytes / 8 {
            try? manager.removeItem(at: folder)
            let fresh = DiskCacheStorage(directory: folder, maximumBytes: maximumBytes)
            let room = min(entry.bodyLength, 64 * 1024, maximumBytes / 8 - head.count)
            let content = Data(repeating: 0x5A, count: max(0, room))
            if let stored = fresh.store(entry, body: content) {
                var expected = entry
                expected.bodyLength = content.count
                expected.bodyID = stored.bodyID
                let reopened = DiskCacheStorage(directory: folder, maximumBytes: maximumBytes)
                report.storesAndReadsBack =
                    stored == expected && reopened.variants(of: entry.key) == [expected]
                    && reopened.body(of: expected) == content
            } else {
                report.storesAndReadsBack = false
            }
        }
        return report
    }
}
