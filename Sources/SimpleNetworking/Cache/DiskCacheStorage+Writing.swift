import Foundation

extension DiskCacheStorage {
    /// Starts storing `entry`: its body is written to a new file in the folder as it arrives.
    /// - Parameter entry: The head.
    /// - Returns: The writer; `nil` when the head breaks the entry format's rules or is too large, the folder is
    ///   being read for the first time, or no file can be created in it.
    package func beginStoring(_ entry: CacheEntry) -> (any CacheEntryWriter)? {
        guard let head = try? entry.encodedHead(), head.count <= maximumEntryBytes,
            let token = whenOpen({ _, state in state.register(entry.id) })
        else { return nil }
        guard let (descriptor, temporary) = CacheFiles.createTemporary(in: path) else {
            endWriting(token)
            return nil
        }
        return Writer(
            storage: self, token: token, entry: entry, headLength: head.count, descriptor: descriptor,
            temporary: temporary)
    }

    /// Replaces the head file of a stored entry, keeping its body file.
    /// - Parameter entry: The new head.
    /// - Returns: The head as stored; `nil` when that entry is no longer stored with that body, another write or a
    ///   removal of it is under way, or the head cannot be written.
    package func replaceHead(with entry: CacheEntry) -> CacheEntry? {
        guard let head = try? entry.encodedHead(), head.count + entry.bodyLength <= maximumEntryBytes else {
            return nil
        }
        let claimed = whenOpen { contents, state -> (token: UInt64, digest: String)? in
            guard let record = contents.index.record(for: entry.id), record.entry.bodyID == entry.bodyID,
                state.claims[record.payload] == nil
            else { return nil }
            state.claims[record.payload] = .writing
            return (state.register(entry.id), record.payload)
        }
        guard let (token, digest) = claimed ?? nil else { return nil }
        let written = CacheFiles.writeAtomically(head, in: path, to: CacheFileName.head(digest), modified: now())
        let bodyName = CacheFileName.body(digest, bodyID: entry.bodyID)
        return finishWriting(token: token, digest: digest, written: written, cancelledFiles: [bodyName]) {
            contents in
            contents.index.replaceHead(with: entry, bytes: head.count + entry.bodyLength) ? (entry, []) : nil
        }
    }

    /// Stores the body a writer wrote to `temporary`: renames it into place, then writes the head that names it,
    /// unless the writer was cancelled or another write to the same files is under way.
    fileprivate func commit(token: UInt64, entry: CacheEntry, bodyLength: Int, temporary: String) -> CacheEntry? {
        var stored = entry
        stored.bodyLength = bodyLength
        stored.bodyID = UInt64.random(in: .min ... .max)
        let digest = CacheFileName.digest(of: stored)
        guard let head = try? stored.encodedHead() else {
            CacheFiles.remove(temporary)
            endWriting(token)
            return nil
        }
        let id = stored.id
        let claimed = whenOpen { contents, state -> Bool in
            guard state.writers[token]?.isCancelled == false, state.claims[digest] == nil,
                contents.index.record(for: id)?.entry.bodyID != stored.bodyID
            else { return false }
            state.claims[digest] = .writing
            return true
        }
        guard claimed == true else {
            CacheFiles.remove(temporary)
            endWriting(token)
            return nil
        }
        let bodyName = CacheFileName.body(digest, bodyID: stored.bodyID)
        var written = rename(temporary, file(bodyName)) == 0
        if written {
            written = CacheFiles.writeAtomically(head, in: path, to: CacheFileName.head(digest), modified: now())
            if !written { CacheFiles.remove(file(bodyName)) }
        } else {
            CacheFiles.remove(temporary)
        }
        return finishWriting(token: token, digest: digest, written: written, cancelledFiles: [bodyName]) {
            contents in
            var replaced: [String] = []
            // Another identity under the same digest (a collision): its head file is now this one.
            if let other = contents.identitiesByDigest[digest], other != id, let old = contents.remove(other) {
                replaced.append(CacheFileName.body(digest, bodyID: old.entry.bodyID))
            }
            let record = CacheIndex<String>.Record(entry: stored, bytes: head.count + bodyLength, payload: digest)
            if let old = contents.insert(record) {
                replaced.append(CacheFileName.body(old.payload, bodyID: old.entry.bodyID))
            }
            return (stored, replaced)
        }
    }

    /// Ends a write that holds the claim on `digest`: when it was cancelled meanwhile, deletes the head and
    /// `cancelledFiles`; when it wrote its files, applies `install` to the index (the entry stored, and the files it
    /// replaced, to delete), then evicts the least recently used entries until the rest fit.
    private func finishWriting(
        token: UInt64, digest: String, written: Bool, cancelledFiles: [String],
        install: (inout Contents) -> (entry: CacheEntry, replaced: [String])?
    ) -> CacheEntry? {
        let outcome = state.withLock { state -> (CacheEntry?, files: [String], claimed: [String]) in
            let writing = state.writers.removeValue(forKey: token)
            guard written else {
                state.claims[digest] = nil
                return (nil, [], [])
            }
            guard writing?.isCancelled == false else {
                // Still claimed until the files are gone, so that no other write renames a head there first.
                state.claims[digest] = .removing
                return (nil, cancelledFiles + [CacheFileName.head(digest)], [digest])
            }
            state.claims[digest] = nil
            let result = state.withContents { contents, state -> (CacheEntry?, files: [String], claimed: [String]) in
                guard let (entry, replaced) = install(&contents) else { return (nil, [], []) }
                let victims = Self.victims(
                    in: contents, claims: state.claims, maximumBytes: maximumBytes, keeping: entry.id)
                let evicted = Self.take(victims, from: &contents, claims: &state.claims)
                return (entry, replaced + evicted.files, evicted.claimed)
            }
            return result ?? (nil, [], [])
        }
        deleteFiles(outcome.files, releasing: outcome.claimed)
        return outcome.0
    }

    fileprivate func endWriting(_ token: UInt64) {
        state.withLock { _ = $0.writers.removeValue(forKey: token) }
    }

    /// Writes a body to its own new file as it arrives, up to the entry limit; only ``commit()`` moves it into
    /// place.
    private final class Writer: CacheEntryWriter {
        private let storage: DiskCacheStorage
        private let token: UInt64
        private let entry: CacheEntry
        private let headLength: Int
        private let descriptor: Int32
        private let temporary: String
        private var written = 0
        private var isFinished = false

        init(
            storage: DiskCacheStorage, token: UInt64, entry: CacheEntry, headLength: Int, descriptor: Int32,
            temporary: String
        ) {
            self.storage = storage
            self.token = token
            self.entry = entry
            self.headLength = headLength
            self.descriptor = descriptor
            self.temporary = temporary
        }

        deinit {
            discard()
        }

        func append(_ chunk: Data) -> Bool {
            guard !isFinished else { return false }
            guard headLength + written + chunk.count <= storage.maximumEntryBytes,
                chunk.withUnsafeBytes({ CacheFiles.writeAll(descriptor, $0) })
            else {
                discard()
                return false
            }
            written += chunk.count
            return true
        }

        func commit() -> CacheEntry? {
            guard !isFinished else { return nil }
            isFinished = true
            let flushed = fsync(descriptor) == 0
            close(descriptor)
            guard flushed else {
                CacheFiles.remove(temporary)
                storage.endWriting(token)
                return nil
            }
            return storage.commit(token: token, entry: entry, bodyLength: written, temporary: temporary)
        }

        func discard() {
            guard !isFinished else { return }
            isFinished = true
            close(descriptor)
            CacheFiles.remove(temporary)
            storage.endWriting(token)
        }
    }
}
