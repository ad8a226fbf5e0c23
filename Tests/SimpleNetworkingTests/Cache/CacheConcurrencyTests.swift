import Foundation
import SimpleNetworking
import Testing

@Suite("Cache storages: concurrent readers and writers")
struct CacheConcurrencyTests {
    /// The head of a version of the shared entry: its headers name the body it was stored with.
    static func version(_ number: Int, variant: Int) -> (CacheEntry, Data) {
        let length = 1500 + number * 7
        let seed = UInt8(truncatingIfNeeded: number)
        let entry = cacheEntry(
            "https://example.com/shared", vary: ["accept": variant == 0 ? "json" : "html"],
            headers: ["Content-Type": "text/plain", "X-Body": "\(length) \(seed)"])
        return (entry, bodyBytes(length, seed: seed))
    }

    /// Whether `body` is the one `head` names; `nil` when the head names none.
    static func matches(_ head: CacheEntry, _ body: Data) -> Bool {
        guard let parts = head.headers["X-Body"]?.split(separator: " "), parts.count == 2,
            let length = Int(parts[0]), let seed = UInt8(parts[1])
        else { return false }
        return head.bodyLength == body.count && body == bodyBytes(length, seed: seed)
    }

    @Test(
        "Many tasks storing, replacing heads, removing and reading one entry: a head always reads its own body",
        arguments: StorageKind.allCases)
    func manyTasks(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 4 << 20)
            let key = cacheKey("https://example.com/shared")
            _ = storage.storedBytes  // the folder read before the tasks start: none of them sees an empty cache
            let mismatches = Counter()
            let hits = Counter()
            let stores = Counter()
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<6 {
                    group.addTask {
                        for round in 0..<12 {
                            let (entry, body) = Self.version(writer * 12 + round, variant: round % 2)
                            let stored: CacheEntry?
                            if writer % 2 == 0 {
                                stored = storage.store(entry, body: body)
                            } else {
                                let pieces = stride(from: 0, to: body.count, by: 400).map {
                                    body.subdata(in: $0..<min($0 + 400, body.count))
                                }
                                stored = try? await storage.store(entry, chunks: chunks(pieces))
                            }
                            if stored != nil { stores.increment() }
                            await Task.yield()
                        }
                    }
                }
                for reader in 0..<6 {
                    group.addTask {
                        for _ in 0..<30 {
                            for head in storage.variants(of: key) {
                                guard let reader = storage.openBody(of: head) else { continue }
                                await Task.yield()  // the entry may be replaced or removed while it is read
                                guard let body = try? reader.readAll() else { continue }
                                hits.increment()
                                if !Self.matches(head, body) { mismatches.increment() }
                            }
                            await Task.yield()
                        }
                        _ = reader
                    }
                }
                for replacer in 0..<2 {
                    group.addTask {
                        for round in 0..<20 {
                            for var head in storage.variants(of: key) {
                                head.headers["X-Replaced"] = "\(replacer)-\(round)"
                                head.responseTime = cacheTestStart.addingTimeInterval(Double(round))
                                _ = storage.replaceHead(with: head)
                            }
                            await Task.yield()
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<8 {
                        storage.removeVariants(of: key)
                        await Task.yield()
                        await Task.yield()
                    }
                }
            }
            #expect(mismatches.value == 0)
            #expect(stores.value > 0)
            #expect(hits.value > 0, "the readers read something")

            let left = storage.variants(of: key)
            #expect(left.count <= 2)
            var total = 0
            for head in left {
                let body = try #require(storage.body(of: head))
                #expect(Self.matches(head, body))
                total += try chargedSize(of: head, bodyLength: body.count)
            }
            #expect(storage.storedBytes == total)
            if kind == .disk {
                let names = try fileNames(in: folder)
                #expect(names.count == 2 * left.count, "a head and a body per entry, nothing else: \(names)")
                let reopened = DiskCacheStorage(directory: folder, maximumBytes: 4 << 20)
                #expect(Set(reopened.variants(of: key)) == Set(storage.variants(of: key)))
                for head in reopened.variants(of: key) {
                    #expect(reopened.body(of: head).map { Self.matches(head, $0) } == true)
                }
            }
        }
    }

    @Test(
        "A body opened before its entry is replaced or removed reads whole; its head opens nothing after",
        arguments: StorageKind.allCases)
    func readerKeepsItsBody(kind: StorageKind) async throws {
        try await withCacheFolder { folder in
            let storage = kind.make(in: folder, maximumBytes: 4 << 20)
            let (entry, body) = Self.version(1, variant: 0)
            let old = try #require(storage.store(entry, body: body))
            let reader = try #require(storage.openBody(of: old))
            let start = try #require(try reader.read(maximumCount: 100))

            let (newEntry, newBody) = Self.version(2, variant: 0)
            let new = try #require(storage.store(newEntry, body: newBody))
            let second = try #require(storage.openBody(of: new))
            storage.removeAll()

            #expect(start + (try reader.readAll()) == body)
            #expect(try second.readAll() == newBody)
            #expect(storage.openBody(of: old) == nil && storage.openBody(of: new) == nil)
        }
    }
}
