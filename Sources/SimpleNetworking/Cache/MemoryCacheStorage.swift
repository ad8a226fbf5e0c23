import Foundation

/// A ``CacheStorage`` in memory: entries live as long as the storage, bounded by ``maximumBytes`` with
/// least-recently-used eviction. An entry's size is its encoded head (the format of `CacheEntry+Format.swift`,
/// close to what its fields take in memory) plus its body.
package final class MemoryCacheStorage: CacheStorage {
    private struct State: Sendable {
        var index = CacheIndex<Data>()
        /// The entries being stored, by writer: a removal of their key takes them out, which cancels them.
        var writers: [UInt64: CacheEntry.Key] = [:]
        var nextToken: UInt64 = 0
    }

    /// The most bytes the entries may take together.
    package let maximumBytes: Int
    private let state = Locked(State())

    /// An empty storage.
    /// - Parameter maximumBytes: The most bytes the entries may take together; a negative number counts as 0,
    ///   which stores nothing.
    package init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The bytes the entries take now.
    package var storedBytes: Int { state.withLock { $0.index.totalBytes } }

    /// The heads stored for `key`, one per variant.
    /// - Parameter key: The request's method and URL.
    /// - Returns: The heads; empty on a miss.
    package func variants(of key: CacheEntry.Key) -> [CacheEntry] {
        state.withLock { $0.index.variants(of: key) }
    }

    /// Opens the body of `entry` and marks the entry used.
    /// - Parameter entry: A head found by ``variants(of:)``.
    /// - Returns: The reader; `nil` when the entry is no longer stored with that body.
    package func openBody(of entry: CacheEntry) -> CacheBodyReader? {
        body(of: entry).map { CacheBodyReader(bytes: $0) }
    }

    /// The body of `entry`, the copy the storage holds, and marks the entry used.
    /// - Parameter entry: A head found by ``variants(of:)``.
    /// - Returns: The body; `nil` when the entry is no longer stored with that body.
    package func body(of entry: CacheEntry) -> Data? {
        state.withLock { state -> Data? in
            guard let record = state.index.useRecord(for: entry.id), record.entry.bodyID == entry.bodyID else {
                return nil
            }
            return record.payload
        }
    }

    /// Starts storing `entry`.
    /// - Parameter entry: The head.
    /// - Returns: The writer; `nil` when the head breaks the entry format's rules or is too large.
    package func beginStoring(_ entry: CacheEntry) -> (any CacheEntryWriter)? {
        guard let headLength = try? entry.encodedHeadLength(), headLength <= maximumEntryBytes else { return nil }
        let token = state.withLock { state in
            state.nextToken += 1
            state.writers[state.nextToken] = entry.key
            return state.nextToken
        }
        return Writer(storage: self, token: token, entry: entry, headLength: headLength)
    }

    /// Replaces the head of a stored entry, keeping its body.
    /// - Parameter entry: The new head.
    /// - Returns: The head as stored; `nil` when that entry is no longer stored with that body, or the new head is
    ///   not storable.
    package func replaceHead(with entry: CacheEntry) -> CacheEntry? {
        state.withLock { state in
            // The stored head passed the format's checks: the fields the new one shares with it pass again.
            guard let record = state.index.record(for: entry.id), record.entry.bodyID == entry.bodyID,
                let headLength = try? entry.encodedHeadLength(replacing: record.entry),
                headLength + entry.bodyLength <= maximumEntryBytes
            else { return nil }
            state.index.replaceHead(with: entry, bytes: headLength + entry.bodyLength)
            evict(&state, keeping: entry.id)
            return entry
        }
    }

    /// Removes every variant of `key`, and cancels the storing of any.
    /// - Parameter key: The primary key.
    package func removeVariants(of key: CacheEntry.Key) {
        state.withLock { state in
            _ = state.index.removeVariants(of: key)
            state.writers = state.writers.filter { $0.value != key }
        }
    }

    /// Removes every entry, and cancels every entry being stored.
    package func removeAll() {
        state.withLock { state in
            state.index = CacheIndex()
            state.writers.removeAll()
        }
    }

    /// Stores what a writer received, unless it was cancelled.
    private func commit(token: UInt64, entry: CacheEntry, headLength: Int, body: Data) -> CacheEntry? {
        state.withLock { state in
            guard state.writers.removeValue(forKey: token) != nil else { return nil }
            var stored = entry
            stored.bodyLength = body.count
            stored.bodyID = token
            state.index.insert(.init(entry: stored, bytes: headLength + body.count, payload: body))
            evict(&state, keeping: stored.id)
            return stored
        }
    }

    private func endWriting(token: UInt64) {
        state.withLock { _ = $0.writers.removeValue(forKey: token) }
    }

    private func evict(_ state: inout State, keeping id: CacheEntry.ID) {
        for victim in state.index.leastRecentlyUsed(toFit: maximumBytes, exempting: { $0 == id }) {
            state.index.remove(victim)
        }
    }

    /// Collects a body in memory, up to the entry limit.
    private final class Writer: CacheEntryWriter {
        private let storage: MemoryCacheStorage
        private let token: UInt64
        private let entry: CacheEntry
        private let headLength: Int
        private var body = Data()
        private var isFinished = false

        init(storage: MemoryCacheStorage, token: UInt64, entry: CacheEntry, headLength: Int) {
            self.storage = storage
            self.token = token
            self.entry = entry
            self.headLength = headLength
        }

        deinit {
            if !isFinished { storage.endWriting(token: token) }
        }

        func append(_ chunk: Data) -> Bool {
            guard !isFinished else { return false }
            guard headLength + body.count + chunk.count <= storage.maximumEntryBytes else {
                discard()
                return false
            }
            body.append(chunk)
            return true
        }

        func commit() -> CacheEntry? {
            guard !isFinished else { return nil }
            isFinished = true
            defer { body = Data() }
            return storage.commit(token: token, entry: entry, headLength: headLength, body: body)
        }

        func discard() {
            guard !isFinished else { return }
            isFinished = true
            body = Data()
            storage.endWriting(token: token)
        }
    }
}
