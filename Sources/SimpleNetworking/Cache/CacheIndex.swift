/// What a cache storage holds, as a value: each entry's head with its size and where its body is (`Payload`: the
/// bytes in memory, a file's digest name on disk), found by identity or by key, in least-recently-used order, with
/// the total size. Both storages keep one behind their lock; its operations never block.
package struct CacheIndex<Payload: Sendable>: Sendable {
    /// One stored entry.
    package struct Record: Sendable {
        /// The entry's head.
        package var entry: CacheEntry
        /// What the entry costs the cache: its encoded head and its body.
        package var bytes: Int
        /// Where its body is.
        package var payload: Payload

        /// A record.
        /// - Parameters:
        ///   - entry: The head.
        ///   - bytes: The size charged to the cache.
        ///   - payload: Where the body is.
        package init(entry: CacheEntry, bytes: Int, payload: Payload) {
            self.entry = entry
            self.bytes = bytes
            self.payload = payload
        }
    }

    private var records: [CacheEntry.ID: Record] = [:]
    private var identitiesByKey: [CacheEntry.Key: [CacheEntry.ID]] = [:]
    /// The identities stored, least recently used first.
    package private(set) var recency = RecencyOrder<CacheEntry.ID>()
    /// The sum of every record's ``Record/bytes``.
    package private(set) var totalBytes = 0

    /// An empty index.
    package init() {}

    /// The number of entries.
    package var count: Int { records.count }

    /// Every record, in no particular order.
    package var allRecords: Dictionary<CacheEntry.ID, Record>.Values { records.values }

    /// The heads stored under `key`, one per variant, in no particular order; empty for a key never stored.
    /// - Parameter key: A primary key.
    /// - Returns: The heads.
    package func variants(of key: CacheEntry.Key) -> [CacheEntry] {
        guard let identities = identitiesByKey[key] else { return [] }
        return identities.compactMap { records[$0]?.entry }
    }

    /// The record of an identity.
    /// - Parameter id: An entry's identity.
    /// - Returns: Its record, or `nil`.
    package func record(for id: CacheEntry.ID) -> Record? { records[id] }

    /// Adds a record as the most recently used, replacing one of the same identity.
    /// - Parameter record: The record.
    /// - Returns: The record it replaced.
    @discardableResult
    package mutating func insert(_ record: Record) -> Record? {
        let id = record.entry.id
        let replaced = records.updateValue(record, forKey: id)
        if let replaced {
            totalBytes -= replaced.bytes
        } else {
            identitiesByKey[id.key, default: []].append(id)
        }
        totalBytes += record.bytes
        recency.markUsed(id)
        return replaced
    }

    /// Changes the head of a stored entry and its size, keeping its body; makes it the most recently used.
    /// - Parameters:
    ///   - entry: The new head, of an identity already stored.
    ///   - bytes: Its new size.
    /// - Returns: `false` when nothing of that identity is stored.
    @discardableResult
    package mutating func replaceHead(with entry: CacheEntry, bytes: Int) -> Bool {
        // One lookup, and the record changed where it is.
        guard let index = records.index(forKey: entry.id) else { return false }
        totalBytes += bytes - records.values[index].bytes
        records.values[index].entry = entry
        records.values[index].bytes = bytes
        recency.markUsed(entry.id)
        return true
    }

    /// The record of `id`, marked the most recently used; `nil` when there is none.
    /// - Parameter id: The entry's identity.
    /// - Returns: The record.
    package mutating func useRecord(for id: CacheEntry.ID) -> Record? {
        guard let record = records[id] else { return nil }
        recency.markUsed(id)
        return record
    }

    /// Makes an entry the most recently used.
    /// - Parameter id: Its identity; nothing happens when it is not stored.
    package mutating func markUsed(_ id: CacheEntry.ID) {
        if records[id] != nil { recency.markUsed(id) }
    }

    /// Takes an entry out.
    /// - Parameter id: Its identity.
    /// - Returns: Its record, or `nil` when it was not stored.
    @discardableResult
    package mutating func remove(_ id: CacheEntry.ID) -> Record? {
        guard let removed = records.removeValue(forKey: id) else { return nil }
        totalBytes -= removed.bytes
        recency.remove(id)
        if var identities = identitiesByKey[id.key] {
            identities.removeAll { $0 == id }
            identitiesByKey[id.key] = identities.isEmpty ? nil : identities
        }
        return removed
    }

    /// Takes out every variant of a key.
    /// - Parameter key: The primary key.
    /// - Returns: The records taken out.
    package mutating func removeVariants(of key: CacheEntry.Key) -> [Record] {
        guard let identities = identitiesByKey[key] else { return [] }
        return identities.compactMap { remove($0) }
    }

    /// The least recently used entries to take out, oldest first, so that the rest fit in `limit` bytes.
    /// - Parameters:
    ///   - limit: The most bytes the entries left may take.
    ///   - isExempt: Whether an entry must stay (one being written); the next older one goes instead.
    /// - Returns: The identities to remove; fewer than needed when too many are exempt.
    package func leastRecentlyUsed(toFit limit: Int, exempting isExempt: (CacheEntry.ID) -> Bool) -> [CacheEntry.ID] {
        var excess = totalBytes - limit
        var victims: [CacheEntry.ID] = []
        var next = recency.oldest
        while excess > 0, let id = next {
            next = recency.newer(than: id)
            guard !isExempt(id), let record = records[id] else { continue }
            victims.append(id)
            excess -= record.bytes
        }
        return victims
    }
}
