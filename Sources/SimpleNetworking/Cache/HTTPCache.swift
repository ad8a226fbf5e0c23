import Foundation

/// A private HTTP cache (RFC 9111) for a client: where responses are kept, and how much room they may take.
///
/// ```swift
/// let cache = HTTPCache.disk(at: cachesFolder.appendingPathComponent("http"), maximumBytes: 50_000_000)
/// print(cache.storedBytes)
/// cache.removeAll()
/// ```
///
/// Copies of a value share one cache. Use one value per folder, shared by every client that caches there: two
/// values made for the same folder do not see each other's changes.
///
/// One response may take at most an eighth of `maximumBytes` (its headers and body together); a larger one is not
/// stored, and storing it never holds more than that in memory. When the responses take more than `maximumBytes`,
/// the least recently used are removed first.
public struct HTTPCache: Sendable {
    /// Where the entries are kept.
    package let storage: any CacheStorage

    /// A cache over `storage`.
    /// - Parameter storage: Where the entries are kept.
    package init(storage: any CacheStorage) {
        self.storage = storage
    }

    /// A cache in memory, emptied when the last copy of the value is released.
    /// - Parameter maximumBytes: The most bytes the stored responses may take; 0 or less stores nothing.
    /// - Returns: The cache.
    public static func memory(maximumBytes: Int) -> HTTPCache {
        HTTPCache(storage: MemoryCacheStorage(maximumBytes: maximumBytes))
    }

    /// A cache in a folder, kept across launches of the app; created, readable by the owner only, when it does not
    /// exist.
    ///
    /// The folder is read the first time the cache is used; files in it that the cache does not write are left
    /// alone, and one of its own that is damaged is removed. Put it in a folder of caches the system may empty,
    /// such as `FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)`.
    /// - Parameters:
    ///   - directory: The folder, a file URL.
    ///   - maximumBytes: The most bytes the stored responses may take on disk; 0 or less stores nothing.
    /// - Returns: The cache.
    public static func disk(at directory: URL, maximumBytes: Int) -> HTTPCache {
        HTTPCache(storage: DiskCacheStorage(directory: directory, maximumBytes: maximumBytes))
    }

    /// The most bytes the stored responses may take.
    public var maximumBytes: Int { storage.maximumBytes }

    /// The bytes the stored responses take now, their headers and bodies; on disk, their files' sizes.
    public var storedBytes: Int { storage.storedBytes }

    /// Removes every stored response; a response being stored meanwhile is not stored.
    public func removeAll() {
        storage.removeAll()
    }
}
