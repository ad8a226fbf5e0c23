import Foundation
import SimpleNetworking
import Testing

@Suite("HTTPCache")
struct HTTPCacheTests {
    @Test("A memory cache: its limit, its size, and removing everything")
    func memory() throws {
        let cache = HTTPCache.memory(maximumBytes: 1_000_000)
        #expect(cache.maximumBytes == 1_000_000 && cache.storedBytes == 0)
        let stored = try #require(cache.storage.store(cacheEntry(), body: bodyBytes(1000)))
        #expect(cache.storedBytes == (try chargedSize(of: stored, bodyLength: 1000)))
        let copy = cache
        copy.removeAll()
        #expect(cache.storedBytes == 0, "copies share one cache")
        #expect(HTTPCache.memory(maximumBytes: -1).maximumBytes == 0)
    }

    @Test("A disk cache: kept in its folder across values, emptied by removeAll")
    func disk() async throws {
        try await withCacheFolder { folder in
            let cache = HTTPCache.disk(at: folder, maximumBytes: 1_000_000)
            #expect(cache.maximumBytes == 1_000_000 && cache.storedBytes == 0)
            let stored = try #require(cache.storage.store(cacheEntry(), body: bodyBytes(1000)))
            let later = HTTPCache.disk(at: folder, maximumBytes: 1_000_000)
            #expect(later.storedBytes == (try chargedSize(of: stored, bodyLength: 1000)))
            later.removeAll()
            #expect(later.storedBytes == 0)
            #expect(try fileNames(in: folder).isEmpty)
        }
    }
}
