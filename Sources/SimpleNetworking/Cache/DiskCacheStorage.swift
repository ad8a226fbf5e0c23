import Foundation

/// A ``CacheStorage`` in a folder: entries survive the process, bounded by ``maximumBytes`` with
/// least-recently-used eviction, the order kept across restarts in each head file's modification time.
///
/// Each entry is two files (their names in `CacheFileName.swift`, the head's format in `CacheEntry+Format.swift`):
/// the head, and the body's raw bytes. Every file is written to a new file in the folder, flushed to the disk and
/// renamed into place, so a reader sees a whole file or none; a body is renamed into place before the head that
/// names it, so a head never names a missing body. Replacing a head (after a `304`) writes only the head.
///
/// The folder is read on first use, outside any lock: each head is checked (format, size, that its name is the
/// digest of its identity, that its body is there with its length), and a file of the cache's that fails is removed:
/// damaged, truncated, left by a process that stopped, or a digest collision. Files of other names, symbolic links and
/// folders are left alone and never followed. While the folder is read, the storage answers as an empty one that
/// stores nothing, and removals wait to be applied. After that, the heads are kept in memory: a lookup reads no
/// file. Use one storage per folder (``HTTPCache`` values share theirs): two storages on one folder do not see each
/// other's changes.
package final class DiskCacheStorage: CacheStorage {
    /// The folder's entries once it has been read.
    struct Contents: Sendable {
        /// The entries, each with its file digest.
        var index = CacheIndex<String>()
        /// The identity stored under each digest.
        var identitiesByDigest: [String: CacheEntry.ID] = [:]

        mutating func insert(_ record: CacheIndex<String>.Record) -> CacheIndex<String>.Record? {
            identitiesByDigest[record.payload] = record.entry.id
            return index.insert(record)
        }

        mutating func remove(_ id: CacheEntry.ID) -> CacheIndex<String>.Record? {
            guard let removed = index.remove(id) else { return nil }
            if identitiesByDigest[removed.payload] == id { identitiesByDigest[removed.payload] = nil }
            return removed
        }
    }

    /// A write in progress: a body being received, or a head being replaced.
    struct Writing: Sendable {
        let id: CacheEntry.ID
        var isCancelled = false
    }

    /// Who has a digest's files in hand: a writer renaming a head into place, or a removal deleting them. Another
    /// write to the same files waits for neither: it is not stored.
    enum Claim: Sendable {
        case writing
        case removing
    }

    struct State: Sendable {
        /// `nil` until the folder has been read.
        var contents: Contents?
        /// While the folder is read: the removals asked for meanwhile, applied once it has been read.
        var opening: PendingRemovals?
        var writers: [UInt64: Writing] = [:]
        var claims: [String: Claim] = [:]
        var nextToken: UInt64 = 0

        mutating func register(_ id: CacheEntry.ID) -> UInt64 {
            nextToken += 1
            writers[nextToken] = Writing(id: id)
            return nextToken
        }

        /// Reads the contents when the folder has been read, without taking them out of the state; `nil` otherwise.
        func readContents<Result>(_ body: (Contents) -> Result) -> Result? {
            guard let contents else { return nil }
            return body(contents)
        }

        /// Runs `body` on the contents when the folder has been read; `nil` otherwise.
        mutating func withContents<Result>(_ body: (inout Contents, inout State) -> Result) -> Result? {
            guard var contents = self.contents else { return nil }
            self.contents = nil
            defer { self.contents = contents }
            return body(&contents, &self)
        }
    }

    /// Removals asked for while the folder is being read.
    struct PendingRemovals: Sendable {
        var keys: Set<CacheEntry.Key> = []
        var all = false
    }

    /// The folder.
    package let directory: URL
    /// The most bytes the entries may take together.
    package let maximumBytes: Int
    let path: String
    let now: @Sendable () -> Date
    let state = Locked(State())

    /// A storage in `directory`, created (owner-only) on first use when it does not exist.
    /// - Parameters:
    ///   - directory: The folder; a file URL. Files of names the cache does not write are left alone.
    ///   - maximumBytes: The most bytes the entries may take together; a negative number counts as 0.
    ///   - now: The clock for the last-use times kept in the files' modification times.
    package init(directory: URL, maximumBytes: Int, now: @escaping @Sendable () -> Date = { Date() }) {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
        self.now = now
        var path = directory.standardizedFileURL.path
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.path = path
    }

    /// The bytes the entries take now: their files' sizes.
    package var storedBytes: Int { whenRead { $0.index.totalBytes } ?? 0 }

    /// The heads stored for `key`, one per variant; no file is read once the folder has been.
    /// - Parameter key: The request's method and URL.
    /// - Returns: The heads; empty on a miss, and while the folder is first read.
    package func variants(of key: CacheEntry.Key) -> [CacheEntry] {
        whenRead { $0.index.variants(of: key) } ?? []
    }

    /// Opens the body file of `entry` and marks the entry used (also in its head file's modification time).
    /// - Parameter entry: A head found by ``variants(of:)``.
    /// - Returns: The reader; `nil` when the entry is no longer stored with that body, or its body file is missing
    ///   or of the wrong size (the entry is then removed).
    package func openBody(of entry: CacheEntry) -> CacheBodyReader? {
        let found = whenOpen { contents, _ -> String? in
            guard let record = contents.index.record(for: entry.id), record.entry.bodyID == entry.bodyID else {
                return nil
            }
            contents.index.markUsed(entry.id)
            return record.payload
        }
        guard let digest = found ?? nil else { return nil }
        switch CacheFiles.openForReading(file(CacheFileName.body(digest, bodyID: entry.bodyID))) {
        case .success(let file):
            guard file.size == entry.bodyLength else {
                close(file.descriptor)
                removeDamaged(entry, digest: digest)
                return nil
            }
            CacheFiles.setModificationDate(self.file(CacheFileName.head(digest)), now())
            return CacheBodyReader(descriptor: file.descriptor, length: file.size)
        case .failure:
            removeDamaged(entry, digest: digest)
            return nil
        }
    }

    /// Removes every variant of `key`, and cancels the storing of any.
    /// - Parameter key: The primary key.
    package func removeVariants(of key: CacheEntry.Key) {
        remove { pending in
            pending.keys.insert(key)
        } stored: { contents in
            contents.index.variants(of: key).map(\.id)
        } cancelling: {
            $0.key == key
        }
    }

    /// Removes every entry, and cancels every entry being stored. Files of names the cache does not write stay.
    package func removeAll() {
        remove { pending in
            pending.all = true
        } stored: { contents in
            contents.index.allRecords.map(\.entry.id)
        } cancelling: { _ in
            true
        }
    }

    /// The path of a file in the folder.
    func file(_ name: String) -> String { path + "/" + name }

    /// Runs `body` under the lock once the folder has been read, reading it first if no one has; `nil` while
    /// another thread reads it.
    func whenOpen<Result>(_ body: (inout Contents, inout State) -> Result) -> Result? {
        if let result = state.withLock({ $0.withContents(body) }) { return result }
        guard openFolder() else { return nil }
        return state.withLock { $0.withContents(body) }
    }

    /// Reads the contents under the lock once the folder has been read, reading it first if no one has; `nil` while
    /// another thread reads it. For lookups: the contents stay where they are.
    func whenRead<Result>(_ body: (Contents) -> Result) -> Result? {
        if let result = state.withLock({ $0.readContents(body) }) { return result }
        guard openFolder() else { return nil }
        return state.withLock { $0.readContents(body) }
    }

    /// Takes the entries `stored` names out of the index and deletes their files, cancels the writers
    /// `isCancelled` selects; while the folder is being read, records the removal with `pend` instead.
    private func remove(
        pending pend: (inout PendingRemovals) -> Void, stored: (Contents) -> [CacheEntry.ID],
        cancelling isCancelled: (CacheEntry.ID) -> Bool
    ) {
        for _ in 0..<2 {
            let outcome = state.withLock { state -> RemovalOutcome in
                if state.contents == nil {
                    guard var pending = state.opening else { return .unopened }
                    pend(&pending)
                    state.opening = pending
                    return .pended
                }
                for (token, writing) in state.writers where isCancelled(writing.id) {
                    state.writers[token]?.isCancelled = true
                }
                let removal = state.withContents { contents, state in
                    Self.take(stored(contents), from: &contents, claims: &state.claims)
                }
                return .removed(files: removal?.files ?? [], claimed: removal?.claimed ?? [])
            }
            switch outcome {
            case .pended:
                return
            case .removed(let files, let claimed):
                deleteFiles(files, releasing: claimed)
                return
            case .unopened:
                _ = openFolder()
            }
        }
    }

    private enum RemovalOutcome {
        case pended
        case unopened
        case removed(files: [String], claimed: [String])
    }

    /// Takes entries out of the index, and claims their digests for removal: the files to delete, and the digests
    /// to release after. The files of a digest a writer has claimed are its own to delete (the removal cancels it),
    /// all but the body of the entry taken out, which no writer names.
    static func take(
        _ identities: [CacheEntry.ID], from contents: inout Contents, claims: inout [String: Claim]
    ) -> (files: [String], claimed: [String]) {
        var files: [String] = []
        var claimed: [String] = []
        for id in identities {
            guard let record = contents.remove(id) else { continue }
            let digest = record.payload
            files.append(CacheFileName.body(digest, bodyID: record.entry.bodyID))
            guard claims[digest] == nil else { continue }
            claims[digest] = .removing
            claimed.append(digest)
            files.append(CacheFileName.head(digest))
        }
        return (files, claimed)
    }

    /// Removes an entry whose body file is missing or of the wrong size, if it is still the one stored.
    private func removeDamaged(_ entry: CacheEntry, digest: String) {
        let removal = state.withLock { state in
            state.withContents { contents, state -> (files: [String], claimed: [String]) in
                guard contents.index.record(for: entry.id)?.entry.bodyID == entry.bodyID, state.claims[digest] == nil
                else { return ([], []) }
                return Self.take([entry.id], from: &contents, claims: &state.claims)
            }
        }
        if let removal { deleteFiles(removal.files, releasing: removal.claimed) }
    }

    /// Deletes files of the folder, then releases the digests claimed for their removal.
    func deleteFiles(_ names: [String], releasing claimed: [String]) {
        for name in names { CacheFiles.remove(file(name)) }
        guard !claimed.isEmpty else { return }
        state.withLock { state in
            for digest in claimed where state.claims[digest] == .removing { state.claims[digest] = nil }
        }
    }

    /// The least recently used entries to take out so that the rest fit in ``maximumBytes``, sparing `kept` and
    /// every entry whose files are in a writer's or a removal's hands.
    static func victims(
        in contents: Contents, claims: [String: Claim], maximumBytes: Int, keeping kept: CacheEntry.ID?
    ) -> [CacheEntry.ID] {
        contents.index.leastRecentlyUsed(toFit: maximumBytes) { id in
            guard id != kept, let digest = contents.index.record(for: id)?.payload else { return true }
            return claims[digest] != nil
        }
    }
}
