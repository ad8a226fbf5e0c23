import Foundation

extension DiskCacheStorage {
    /// An entry found in the folder, with its head file's modification time: when it was last used.
    struct FoundEntry {
        var record: CacheIndex<String>.Record
        var lastUsed: Date
    }

    /// Reads the folder into the index, unless it has been read or another thread is reading it; the removals asked
    /// for meanwhile are applied after, and then the least recently used entries go until the rest fit.
    /// - Returns: `true` when the folder has been read (by this call or an earlier one); `false` while another
    ///   thread reads it.
    func openFolder() -> Bool {
        let isMine = state.withLock { state -> Bool? in
            if state.contents != nil { return nil }
            if state.opening != nil { return false }
            state.opening = PendingRemovals()
            return true
        }
        guard let isMine else { return true }
        guard isMine else { return false }

        let found = Self.readFolder(path, maximumEntryBytes: maximumEntryBytes)
        let removal = state.withLock { state -> (files: [String], claimed: [String]) in
            let pending = state.opening ?? PendingRemovals()
            state.opening = nil
            var contents = Contents()
            for entry in found.sorted(by: { $0.lastUsed < $1.lastUsed }) { _ = contents.insert(entry.record) }
            var removed: [CacheEntry.ID] =
                pending.all
                ? contents.index.allRecords.map(\.entry.id)
                : pending.keys.flatMap { contents.index.variants(of: $0).map(\.id) }
            var removal = Self.take(removed, from: &contents, claims: &state.claims)
            removed = Self.victims(in: contents, claims: state.claims, maximumBytes: maximumBytes, keeping: nil)
            let evicted = Self.take(removed, from: &contents, claims: &state.claims)
            removal.files += evicted.files
            removal.claimed += evicted.claimed
            state.contents = contents
            return removal
        }
        deleteFiles(removal.files, releasing: removal.claimed)
        return true
    }

    /// The entries of the folder at `path`, created (owner-only) when missing; removes the cache's files that fail
    /// their checks, and those left by a process that stopped mid-write.
    static func readFolder(_ path: String, maximumEntryBytes: Int) -> [FoundEntry] {
        let manager = FileManager.default
        try? manager.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard let names = try? manager.contentsOfDirectory(atPath: path) else { return [] }
        var heads: [String] = []
        var bodies: [String] = []
        for name in names {
            switch CacheFileName.kind(of: name) {
            case .head(let digest): heads.append(digest)
            case .body: bodies.append(name)
            case .temporary: removeRegularFile(path + "/" + name)
            case nil: continue
            }
        }
        var found: [FoundEntry] = []
        var bodiesInUse: Set<String> = []
        for digest in heads {
            switch readEntry(digest: digest, in: path, maximumEntryBytes: maximumEntryBytes) {
            case .found(let entry):
                found.append(entry)
                bodiesInUse.insert(CacheFileName.body(digest, bodyID: entry.record.entry.bodyID))
            case .damaged:
                CacheFiles.remove(path + "/" + CacheFileName.head(digest))
            case .notOurs:
                continue
            }
        }
        for name in bodies where !bodiesInUse.contains(name) { removeRegularFile(path + "/" + name) }
        return found
    }

    private enum ReadOutcome {
        case found(FoundEntry)
        /// A regular file of the cache's name that is not a usable entry: removed.
        case damaged
        /// Not a regular file (a symbolic link, a folder), or unreadable: left alone.
        case notOurs
    }

    /// Reads and checks one head file, and that its body file is there with the head's length.
    private static func readEntry(digest: String, in path: String, maximumEntryBytes: Int) -> ReadOutcome {
        let file: CacheFiles.OpenFile
        switch CacheFiles.openForReading(path + "/" + CacheFileName.head(digest)) {
        case .success(let opened): file = opened
        case .failure: return .notOurs
        }
        defer { close(file.descriptor) }
        guard file.size <= CacheEntry.maximumHeadLength, file.size <= maximumEntryBytes,
            let bytes = CacheFiles.readExactly(file.descriptor, count: file.size),
            let entry = try? CacheEntry(decodingHead: [UInt8](bytes)),
            CacheFileName.digest(of: entry) == digest,
            file.size + entry.bodyLength <= maximumEntryBytes,
            CacheFiles.regularFileSize(path + "/" + CacheFileName.body(digest, bodyID: entry.bodyID))
                == entry.bodyLength
        else { return .damaged }
        let record = CacheIndex<String>.Record(entry: entry, bytes: file.size + entry.bodyLength, payload: digest)
        return .found(FoundEntry(record: record, lastUsed: file.modified))
    }

    /// Removes the file at `path` when it is a regular file: never a symbolic link or a folder of that name.
    private static func removeRegularFile(_ path: String) {
        if CacheFiles.regularFileSize(path) != nil { CacheFiles.remove(path) }
    }
}
