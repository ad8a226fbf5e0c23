import Foundation

/// Where an ``HTTPCache`` keeps its entries: ``MemoryCacheStorage`` or ``DiskCacheStorage``. Storage only: which
/// responses to store, which variant answers a request, and how fresh it is are decided elsewhere.
///
/// Every operation is safe from any thread and never blocks on another: a storage holds its lock only to read or
/// change its index, never across file I/O. An entry that is too large for the storage is not stored: one whose head
/// and body take more than ``maximumEntryBytes``, an eighth of ``maximumBytes``, so that one response cannot push out
/// most of the others, and a body being stored never takes more memory than that. When the entries take more than
/// ``maximumBytes``, the least recently used go first; using an entry is storing it, replacing its head, or opening
/// its body (a lookup is not a use: a variant can be looked at and not chosen).
///
/// Readers and writers of one entry stay consistent: a head found by ``variants(of:)`` opens its own body or none (if
/// the entry has been replaced or removed since), never another response's.
package protocol CacheStorage: Sendable {
    /// The most bytes the entries may take together; at least 0.
    var maximumBytes: Int { get }

    /// The bytes the entries take now: each one's encoded head and body.
    var storedBytes: Int { get }

    /// The heads stored for `key`, one per variant, in no particular order; empty on a miss. Cheap: no file is read.
    /// - Parameter key: The request's method and URL.
    /// - Returns: The heads.
    func variants(of key: CacheEntry.Key) -> [CacheEntry]

    /// Opens the body of an entry found by ``variants(of:)``, and marks the entry used.
    /// - Parameter entry: The head.
    /// - Returns: A reader of the body; `nil` when that entry is no longer stored (replaced, removed, evicted, or
    ///   its file found damaged, which also removes it).
    func openBody(of entry: CacheEntry) -> CacheBodyReader?

    /// The whole body of an entry found by ``variants(of:)``, and marks the entry used. The default reads it through
    /// ``openBody(of:)``; a storage that holds bodies in memory hands its copy over.
    /// - Parameter entry: The head.
    /// - Returns: The body; `nil` when the entry is no longer stored or its body cannot be read whole.
    func body(of entry: CacheEntry) -> Data?

    /// Starts storing `entry`: the body follows through the writer, chunk by chunk, and the entry replaces the
    /// stored one of the same identity when the writer commits.
    /// - Parameter entry: The head; its ``CacheEntry/bodyLength`` and ``CacheEntry/bodyID`` are set on commit.
    /// - Returns: The writer; `nil` when the entry cannot be stored (its head breaks the entry format's rules or
    ///   is too large, or the storage cannot write).
    func beginStoring(_ entry: CacheEntry) -> (any CacheEntryWriter)?

    /// Replaces the head of a stored entry, keeping its body: the response headers and times after a `304`
    /// (RFC 9111 section 4.3.4). The entry becomes the most recently used.
    /// - Parameter entry: The new head: an entry found by ``variants(of:)`` with its ``CacheEntry/headers``,
    ///   ``CacheEntry/status`` or times changed.
    /// - Returns: The head as stored; `nil` when that entry is no longer stored with that body, or the new head
    ///   cannot be stored (the entry is then left as it was).
    func replaceHead(with entry: CacheEntry) -> CacheEntry?

    /// Removes every variant of `key` (invalidation, RFC 9111 section 4.4), and cancels the storing of any.
    /// - Parameter key: The primary key.
    func removeVariants(of key: CacheEntry.Key)

    /// Removes every entry, and cancels every entry being stored.
    func removeAll()
}

/// Receives the body of an entry being stored (``CacheStorage/beginStoring(_:)``), chunk by chunk as it arrives,
/// then stores the entry or discards it. Used by one task at a time. A writer released without ``commit()`` discards
/// what it received.
package protocol CacheEntryWriter: AnyObject {
    /// Adds the next bytes of the body.
    /// - Parameter chunk: The bytes.
    /// - Returns: `false` once the writer has given up (the entry has grown past ``CacheStorage/maximumEntryBytes``,
    ///   or a write failed): what it received is discarded, and the rest of the body is ignored.
    @discardableResult
    func append(_ chunk: Data) -> Bool

    /// Stores the entry with the body received, in place of the one of the same identity.
    /// - Returns: The head as stored, with its body's length and number; `nil` when it was not stored (the writer
    ///   gave up, the storing was cancelled by a removal, or the files could not be written).
    func commit() -> CacheEntry?

    /// Discards what was received; the storage is left as it was.
    func discard()
}

extension CacheStorage {
    /// The most bytes one entry may take, its head and body together: an eighth of ``maximumBytes``. A larger
    /// entry is not stored.
    package var maximumEntryBytes: Int { maximumBytes / 8 }

    /// Stores an entry whose body is all in memory.
    /// - Parameters:
    ///   - entry: The head.
    ///   - body: The body.
    /// - Returns: The head as stored; `nil` when it was not stored.
    @discardableResult
    package func store(_ entry: CacheEntry, body: Data) -> CacheEntry? {
        guard let writer = beginStoring(entry) else { return nil }
        guard writer.append(body) else { return nil }
        return writer.commit()
    }

    /// Stores an entry whose body arrives in chunks, writing each as it comes; a failure of the sequence discards
    /// the entry and is rethrown. When the entry cannot be stored at all, the chunks are not read.
    /// - Parameters:
    ///   - entry: The head.
    ///   - chunks: The body's bytes.
    /// - Returns: The head as stored; `nil` when it was not stored.
    @discardableResult
    package func store<Chunks: AsyncSequence>(_ entry: CacheEntry, chunks: Chunks) async throws -> CacheEntry?
    where Chunks.Element == Data {
        guard let writer = beginStoring(entry) else { return nil }
        do {
            for try await chunk in chunks { writer.append(chunk) }
        } catch {
            writer.discard()
            throw error
        }
        return writer.commit()
    }

    /// The whole body of an entry, read through ``openBody(of:)``.
    /// - Parameter entry: The head.
    /// - Returns: The body; `nil` when the entry is no longer stored or its body cannot be read whole.
    package func body(of entry: CacheEntry) -> Data? {
        try? openBody(of: entry)?.readAll()
    }
}
