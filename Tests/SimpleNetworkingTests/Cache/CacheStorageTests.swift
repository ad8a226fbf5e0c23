import Foundation
import SimpleNetworking
import Testing

/// The two storages, for tests that hold for both.
enum StorageKind: String, CaseIterable, CustomTestStringConvertible {
    case memory
    case disk

    var testDescription: String { rawValue }

    /// A storage of this kind; on disk, in `folder`.
    func make(in folder: URL, maximumBytes: Int, now: @escaping @Sendable () -> Date = { cacheTestStart })
        -> any CacheStorage
    {
        switch self {
        case .memory: MemoryCacheStorage(maximumBytes: maximumBytes)
        case .disk: DiskCacheStorage(directory: folder, maximumBytes: maximumBytes, now: now)
        }
    }
}

/// Chunks of a body, then a failure: a response whose connection dropped mid-body.
func failingChunks(_ chunks: [Data]) -> AsyncThrowingStream<Data, any Error> {
    AsyncThrowingStream { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish(throwing: URLError(.networkConnectionLost))
    }
}

/// Chunks of a body.
func chunks(_ chunks: [Data]) -> AsyncThrowingStream<Data, any Error> {
    AsyncThrowingStream { continuation in
        for chunk in chunks { continuation.yield(chunk) }
        continuation.finish()
    }
}

@Suite("Cache storages: what both must do")
struct CacheStorageTests {
    @Test("An entry stored reads back: head, body whole and in chunks, size", arguments: StorageKind.allCases)
    func roundTrip(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 1 << 20)
            let body = bodyBytes(10_000)
            let entry = cacheEntry(vary: ["Accept": "application/json", "Accept-Language": nil])
            let stored = try #require(storage.store(entry, body: body))
            #expect(stored.bodyLength == body.count)
            #expect(stored.key == entry.key && stored.headers == entry.headers && stored.status == entry.status)
            #expect(stored.requestTime == entry.requestTime && stored.responseTime == entry.responseTime)
            #expect(storage.variants(of: entry.key) == [stored])
            #expect(storage.variants(of: cacheKey("https://api.example.com/v1/other")).isEmpty)
            #expect(storage.variants(of: cacheKey(entry.key.url, method: .head)).isEmpty)
            #expect(storage.body(of: stored) == body)
            let reader = try #require(storage.openBody(of: stored))
            var pieces = Data()
            while let piece = try reader.read(maximumCount: 999) {
                #expect(piece.count <= 999)
                pieces.append(piece)
            }
            #expect(pieces == body && reader.isAtEnd)
            #expect(storage.storedBytes == (try chargedSize(of: stored, bodyLength: body.count)))
        }
    }

    @Test("An empty body is stored too", arguments: StorageKind.allCases)
    func emptyBody(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 1 << 20)
            let stored = try #require(storage.store(cacheEntry(status: 204), body: Data()))
            #expect(storage.body(of: stored) == Data())
            #expect(try storage.openBody(of: stored)?.read() == nil)
        }
    }

    @Test(
        "Variants of one URL live side by side; the same variant replaces the one before",
        arguments: StorageKind.allCases)
    func variants(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 1 << 20)
            let json = try #require(storage.store(cacheEntry(vary: ["accept": "json"]), body: bodyBytes(10, seed: 1)))
            let html = try #require(storage.store(cacheEntry(vary: ["accept": "html"]), body: bodyBytes(20, seed: 2)))
            let plain = try #require(storage.store(cacheEntry(), body: bodyBytes(30, seed: 3)))
            let key = json.key
            #expect(Set(storage.variants(of: key)) == [json, html, plain])

            let newJSON = try #require(
                storage.store(
                    cacheEntry(vary: ["Accept": "json"], headers: ["ETag": "\"2\""]), body: bodyBytes(40, seed: 4)))
            #expect(Set(storage.variants(of: key)) == [newJSON, html, plain])
            #expect(storage.body(of: newJSON) == bodyBytes(40, seed: 4))
            #expect(storage.body(of: json) == nil, "a head found before the replacement opens no other body")
            #expect(storage.body(of: html) == bodyBytes(20, seed: 2))
            let sizes = try [(newJSON, 40), (html, 20), (plain, 30)].map { try chargedSize(of: $0.0, bodyLength: $0.1) }
            #expect(storage.storedBytes == sizes.reduce(0, +))
        }
    }

    @Test("The least recently used entries go first once the limit is passed", arguments: StorageKind.allCases)
    func leastRecentlyUsed(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let time = ManualTime(cacheTestStart)
            func entry(_ number: Int) -> CacheEntry { cacheEntry("https://example.com/\(number + 10)") }
            let size = try chargedSize(of: entry(0), bodyLength: 100)
            let storage = kind.make(in: folder, maximumBytes: 8 * size, now: time.now)
            #expect(storage.maximumEntryBytes == size)
            var stored: [Int: CacheEntry] = [:]
            for number in 1...8 {
                time.advance(1)
                stored[number] = storage.store(entry(number), body: bodyBytes(100, seed: UInt8(number)))
            }
            #expect(stored.count == 8 && storage.storedBytes == 8 * size)
            func present() -> [Int] { (1...13).filter { !storage.variants(of: entry($0).key).isEmpty } }

            time.advance(1)
            #expect(try storage.openBody(of: #require(stored[1])) != nil)  // 1 is now the most recently used
            time.advance(1)
            storage.store(entry(9), body: bodyBytes(100))
            #expect(present() == [1, 3, 4, 5, 6, 7, 8, 9])
            #expect(storage.storedBytes == 8 * size)

            _ = storage.variants(of: entry(3).key)  // a lookup is not a use
            time.advance(1)
            storage.store(entry(10), body: bodyBytes(100))
            #expect(present() == [1, 4, 5, 6, 7, 8, 9, 10])

            time.advance(1)
            var updated = try #require(stored[4])
            updated.headers = ["Content-Type": "application/json", "ETag": "\"4\""]  // a head replaced is a use
            #expect(storage.replaceHead(with: updated) != nil)
            time.advance(1)
            storage.store(entry(11), body: bodyBytes(100))
            #expect(present() == [1, 4, 6, 7, 8, 9, 10, 11])

            time.advance(1)
            storage.store(entry(12), body: bodyBytes(50))  // one entry makes room for it
            #expect(present() == [1, 4, 7, 8, 9, 10, 11, 12])
            time.advance(1)
            storage.store(entry(13), body: bodyBytes(100))  // and one is still enough: 50 bytes were to spare
            #expect(present() == [1, 4, 8, 9, 10, 11, 12, 13])
            #expect(storage.storedBytes == 8 * size - 50)
        }
    }

    @Test(
        "An entry larger than an eighth of the cache is not stored, whole or streamed", arguments: StorageKind.allCases)
    func tooLarge(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 80_000)
            let entry = cacheEntry()
            let room = storage.maximumEntryBytes - (try chargedSize(of: entry, bodyLength: 0))
            #expect(storage.maximumEntryBytes == 10_000)
            let old = try #require(storage.store(entry, body: bodyBytes(room)), "exactly at the limit is stored")
            #expect(storage.store(entry, body: bodyBytes(room + 1)) == nil)
            #expect(storage.variants(of: entry.key) == [old])

            let writer = try #require(storage.beginStoring(entry))
            #expect(writer.append(bodyBytes(room - 10)))
            #expect(!writer.append(bodyBytes(11)), "the writer gives up past the limit")
            #expect(!writer.append(bodyBytes(1)))
            #expect(writer.commit() == nil)
            #expect(storage.variants(of: entry.key) == [old])
            #expect(storage.body(of: old) == bodyBytes(room))

            let huge = cacheEntry("https://example.com/huge", headers: ["X": String(repeating: "a", count: 10_000)])
            #expect(storage.beginStoring(huge) == nil, "a head alone over the limit is refused at once")
            #expect(MemoryCacheStorage(maximumBytes: 0).store(entry, body: Data()) == nil)
            #expect(MemoryCacheStorage(maximumBytes: -5).maximumBytes == 0)
            if kind == .disk { #expect(try fileNames(in: folder).count == 2) }
        }
    }

    @Test(
        "A body streamed in chunks is stored once whole; one that fails is discarded", arguments: StorageKind.allCases)
    func streamed(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 1 << 20)
            let entry = cacheEntry()
            let parts = [bodyBytes(1000, seed: 1), bodyBytes(1, seed: 2), Data(), bodyBytes(5000, seed: 3)]
            let stored = try #require(try await storage.store(entry, chunks: chunks(parts)))
            #expect(storage.body(of: stored) == parts.reduce(Data(), +))

            var failing = entry
            failing.headers = ["ETag": "\"new\""]
            await #expect(throws: URLError.self) {
                try await storage.store(failing, chunks: failingChunks([bodyBytes(3000), bodyBytes(3000)]))
            }
            #expect(storage.variants(of: entry.key) == [stored])
            #expect(storage.body(of: stored) == parts.reduce(Data(), +))
            #expect(storage.storedBytes == (try chargedSize(of: stored, bodyLength: 6001)))
            if kind == .disk { #expect(try fileNames(in: folder).count == 2, "no file left of the failed body") }

            let abandoned = try #require(storage.beginStoring(failing))
            abandoned.append(bodyBytes(10))
            abandoned.discard()
            #expect(abandoned.commit() == nil && !abandoned.append(Data([1])))
            do {
                let dropped = try #require(storage.beginStoring(failing))
                dropped.append(bodyBytes(10))
            }
            #expect(storage.variants(of: entry.key) == [stored])
            if kind == .disk {
                #expect(try fileNames(in: folder).count == 2, "a writer released uncommitted leaves nothing")
            }
        }
    }

    @Test(
        "Replacing a head keeps the body; a head of a replaced or removed entry is not written",
        arguments: StorageKind.allCases)
    func replaceHead(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 1 << 20)
            let body = bodyBytes(4000)
            let stored = try #require(storage.store(cacheEntry(), body: body))
            var merged = stored
            merged.headers = merged.headers.merging(["ETag": "\"1\"", "Cache-Control": "max-age=60", "Date": "now"])
            merged.status = 200
            merged.requestTime = cacheTestStart.addingTimeInterval(100)
            merged.responseTime = cacheTestStart.addingTimeInterval(101)
            let bodyFile = folder.appendingPathComponent(
                CacheFileName.body(CacheFileName.digest(of: stored), bodyID: stored.bodyID)
            ).path
            let fileNumber =
                kind == .disk
                ? try FileManager.default.attributesOfItem(atPath: bodyFile)[.systemFileNumber] as? NSNumber : nil

            #expect(storage.replaceHead(with: merged) == merged)
            #expect(storage.variants(of: stored.key) == [merged])
            #expect(storage.body(of: merged) == body)
            #expect(storage.storedBytes == (try chargedSize(of: merged, bodyLength: body.count)))
            if kind == .disk {
                let after = try FileManager.default.attributesOfItem(atPath: bodyFile)[.systemFileNumber] as? NSNumber
                #expect(after != nil && after == fileNumber, "the body file is the same file")
                let reopened = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
                #expect(reopened.variants(of: stored.key) == [merged])
                #expect(reopened.body(of: merged) == body)
            }

            let replacement = try #require(storage.store(cacheEntry(), body: bodyBytes(10)))
            #expect(storage.replaceHead(with: merged) == nil, "the entry was replaced since")
            #expect(storage.variants(of: stored.key) == [replacement])
            var invalid = replacement
            invalid.headers = ["Bad": "a\r\nb"]
            #expect(storage.replaceHead(with: invalid) == nil)
            storage.removeVariants(of: replacement.key)
            #expect(storage.replaceHead(with: replacement) == nil, "the entry was removed since")
            #expect(storage.variants(of: stored.key).isEmpty)
        }
    }

    @Test(
        "Removal by key takes every variant of that key; removing all empties the storage",
        arguments: StorageKind.allCases)
    func removal(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let foreign = folder.appendingPathComponent("notes.txt")
            try Data("mine".utf8).write(to: foreign)
            let storage = kind.make(in: folder, maximumBytes: 1 << 20)
            let a1 = try #require(
                storage.store(cacheEntry("https://example.com/a", vary: ["x": "1"]), body: bodyBytes(10)))
            storage.store(cacheEntry("https://example.com/a", vary: ["x": "2"]), body: bodyBytes(10))
            let b = try #require(storage.store(cacheEntry("https://example.com/b"), body: bodyBytes(10)))
            storage.removeVariants(of: cacheKey("https://example.com/unknown"))
            #expect(storage.variants(of: a1.key).count == 2)

            storage.removeVariants(of: a1.key)
            #expect(storage.variants(of: a1.key).isEmpty)
            #expect(storage.body(of: a1) == nil)
            #expect(storage.variants(of: b.key) == [b])
            #expect(storage.storedBytes == (try chargedSize(of: b, bodyLength: 10)))

            storage.removeAll()
            #expect(storage.variants(of: b.key).isEmpty && storage.storedBytes == 0)
            #expect(storage.body(of: b) == nil)
            if kind == .disk { #expect(try fileNames(in: folder) == ["notes.txt"]) }
            #expect(try Data(contentsOf: foreign) == Data("mine".utf8))
            #expect(storage.store(b, body: bodyBytes(3)) != nil, "the storage stores again after")
        }
    }

    @Test("A removal cancels the storing of the entries it removes, and only those", arguments: StorageKind.allCases)
    func cancellation(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 1 << 20)
            let a = try #require(storage.beginStoring(cacheEntry("https://example.com/a")))
            let b = try #require(storage.beginStoring(cacheEntry("https://example.com/b")))
            a.append(bodyBytes(100))
            b.append(bodyBytes(100))
            storage.removeVariants(of: cacheKey("https://example.com/a"))
            #expect(a.commit() == nil)
            #expect(b.commit() != nil)
            let c = try #require(storage.beginStoring(cacheEntry("https://example.com/c")))
            storage.removeAll()
            c.append(bodyBytes(100))
            #expect(c.commit() == nil)
            #expect(storage.storedBytes == 0)
            if kind == .disk { #expect(try fileNames(in: folder).isEmpty) }
        }
    }
}
