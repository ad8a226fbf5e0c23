import Foundation
import SimpleNetworking
import Testing

/// The paths of an entry's two files in `folder`.
func entryFiles(_ entry: CacheEntry, in folder: URL) -> (head: URL, body: URL) {
    let digest = CacheFileName.digest(of: entry)
    return (
        folder.appendingPathComponent(CacheFileName.head(digest)),
        folder.appendingPathComponent(CacheFileName.body(digest, bodyID: entry.bodyID))
    )
}

/// Replaces the content of a file.
func overwrite(_ file: URL, with bytes: Data) throws {
    try bytes.write(to: file)
}

@Suite("Disk cache storage")
struct DiskCacheStorageTests {
    @Test("A new storage on the same folder sees the entries, their bodies and their order of use")
    func restart() async throws {
        try await withCacheFolder { folder in
            let time = ManualTime(cacheTestStart)
            func entry(_ number: Int) -> CacheEntry { cacheEntry("https://example.com/\(number)") }
            let size = try chargedSize(of: entry(1), bodyLength: 100)
            let first = DiskCacheStorage(directory: folder, maximumBytes: 8 * size, now: time.now)
            for number in 1...4 {
                time.advance(10)
                first.store(entry(number), body: bodyBytes(100, seed: UInt8(number)))
            }
            time.advance(10)
            let variant = try #require(
                first.store(cacheEntry("https://example.com/1", vary: ["accept": "x"]), body: bodyBytes(50)))
            time.advance(10)
            let one = try #require(first.variants(of: entry(1).key).first { $0.variant == .none })
            #expect(first.body(of: one) != nil)  // 1 is now the most recently used, 2 the least
            let total = try 4 * size + chargedSize(of: variant, bodyLength: 50)
            #expect(first.storedBytes == total)

            let second = DiskCacheStorage(directory: folder, maximumBytes: 8 * size, now: time.now)
            #expect(second.storedBytes == total)
            for number in 5...8 {
                time.advance(10)
                second.store(entry(number), body: bodyBytes(100, seed: UInt8(number)))
            }
            let present = (1...8).filter { !second.variants(of: entry($0).key).isEmpty }
            #expect(present == [1, 3, 4, 5, 6, 7, 8], "the least recently used before the restart goes first")

            let third = DiskCacheStorage(directory: folder, maximumBytes: 8 * size, now: time.now)
            #expect(third.storedBytes == second.storedBytes)
            #expect(Set(third.variants(of: entry(1).key)) == [one, variant])
            for number in present {
                let heads = second.variants(of: entry(number).key)
                #expect(Set(third.variants(of: entry(number).key)) == Set(heads))
                for head in heads where head.variant == .none {
                    #expect(third.body(of: head) == bodyBytes(100, seed: UInt8(number)))
                }
            }
            #expect(third.body(of: variant) == bodyBytes(50))
        }
    }

    @Test("A removal asked for while another task reads the folder still takes effect")
    func removalWhileOpening() async throws {
        try await withCacheFolder { (folder: URL) async throws -> Void in
            let first = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
            for number in 0..<60 { first.store(cacheEntry("https://example.com/\(number)"), body: bodyBytes(100)) }
            for round in 0..<4 {
                let storage = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
                let removed = cacheKey("https://example.com/\(round)")
                async let opened = Task { storage.storedBytes }.value
                async let removal: Void = Task { storage.removeVariants(of: removed) }.value
                _ = await (opened, removal)
                #expect(storage.variants(of: removed).isEmpty)
                #expect(storage.variants(of: cacheKey("https://example.com/59")).count == 1)
                #expect(DiskCacheStorage(directory: folder, maximumBytes: 1 << 20).variants(of: removed).isEmpty)
            }
            let storage = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
            async let opened = Task { storage.variants(of: cacheKey("https://example.com/59")) }.value
            async let removal: Void = Task { storage.removeAll() }.value
            _ = await (opened, removal)
            #expect(storage.storedBytes == 0)
            #expect(try fileNames(in: folder).isEmpty)
        }
    }

    @Test("Entries over the limits of a smaller cache are dropped when the folder is read")
    func smallerCache() async throws {
        try await withCacheFolder { folder in
            let time = ManualTime(cacheTestStart)
            let large = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20, now: time.now)
            for number in 1...11 {
                time.advance(1)
                large.store(
                    cacheEntry("https://example.com/\(number + 10)"), body: bodyBytes(number == 11 ? 3000 : 500))
            }
            let size = try chargedSize(of: cacheEntry("https://example.com/11"), bodyLength: 500)
            let small = DiskCacheStorage(directory: folder, maximumBytes: 8 * size + 10, now: time.now)
            #expect(small.storedBytes == 8 * size)
            let present = (1...11).filter { !small.variants(of: cacheKey("https://example.com/\($0 + 10)")).isEmpty }
            #expect(present == Array(3...10), "11 is too large for the small cache, 1 and 2 the least recently used")
            #expect(try fileNames(in: folder).count == 16)
        }
    }

    /// A change to the files of one stored entry, and whether its head file is still there afterwards.
    struct Damage: Sendable, CustomTestStringConvertible {
        var name: String
        var change: @Sendable (_ head: URL, _ body: URL, _ other: URL) throws -> Void
        var testDescription: String { name }
    }

    static let damages: [Damage] = [
        Damage(name: "empty head") { head, _, _ in try overwrite(head, with: Data()) },
        Damage(name: "head cut in half") { head, _, _ in
            let bytes = try Data(contentsOf: head)
            try overwrite(head, with: bytes.prefix(bytes.count / 2))
        },
        Damage(name: "head one byte short") { head, _, _ in try overwrite(head, with: Data(contentsOf: head).dropLast())
        },
        Damage(name: "head with a byte more") { head, _, _ in try overwrite(head, with: Data(contentsOf: head) + [0]) },
        Damage(name: "head of random bytes") { head, _, _ in
            try overwrite(head, with: Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        },
        Damage(name: "head of text") { head, _, _ in try overwrite(head, with: Data("HTTP/1.1 200 OK\r\n\r\n".utf8)) },
        Damage(name: "head of a later format version") { head, _, _ in
            var bytes = try Data(contentsOf: head)
            bytes[8] = 2
            try overwrite(head, with: bytes)
        },
        Damage(name: "head of another entry (its name is not that entry's digest)") { head, _, other in
            try overwrite(head, with: Data(contentsOf: other))
        },
        Damage(name: "body cut short") { _, body, _ in try overwrite(body, with: Data(contentsOf: body).dropLast()) },
        Damage(name: "body with a byte more") { _, body, _ in try overwrite(body, with: Data(contentsOf: body) + [1]) },
        Damage(name: "body missing") { _, body, _ in try FileManager.default.removeItem(at: body) },
        Damage(name: "body replaced by a folder") { _, body, _ in
            try FileManager.default.removeItem(at: body)
            try FileManager.default.createDirectory(at: body, withIntermediateDirectories: false)
        },
    ]

    @Test(
        "A damaged, truncated or foreign entry is dropped when the folder is read; the others stay",
        arguments: damages)
    func damagedEntry(_ damage: Damage) async throws {
        try await withCacheFolder { folder in
            let first = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
            let victim = try #require(first.store(cacheEntry("https://example.com/victim"), body: bodyBytes(700)))
            let survivor = try #require(first.store(cacheEntry("https://example.com/survivor"), body: bodyBytes(70)))
            let files = entryFiles(victim, in: folder)
            try damage.change(files.head, files.body, entryFiles(survivor, in: folder).head)

            let second = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
            #expect(second.variants(of: victim.key).isEmpty)
            #expect(second.variants(of: survivor.key) == [survivor])
            #expect(second.body(of: survivor) == bodyBytes(70))
            #expect(second.storedBytes == (try chargedSize(of: survivor, bodyLength: 70)))
            #expect(!FileManager.default.fileExists(atPath: files.head.path), "the damaged head is removed")
            let survivorFiles = entryFiles(survivor, in: folder)
            var expected = [survivorFiles.head.lastPathComponent, survivorFiles.body.lastPathComponent]
            if damage.name == "body replaced by a folder" { expected.append(files.body.lastPathComponent) }
            #expect(try fileNames(in: folder) == expected.sorted())
            #expect(second.store(victim, body: bodyBytes(5)) != nil, "the entry can be stored again")
        }
    }

    @Test("A body found damaged when it is opened drops its entry")
    func damagedWhileOpen() async throws {
        try await withCacheFolder { folder in
            let storage = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
            let entry = try #require(storage.store(cacheEntry(), body: bodyBytes(700)))
            let files = entryFiles(entry, in: folder)
            try overwrite(files.body, with: bodyBytes(300))
            #expect(storage.openBody(of: entry) == nil)
            #expect(storage.variants(of: entry.key).isEmpty && storage.storedBytes == 0)
            #expect(try fileNames(in: folder).isEmpty)

            let again = try #require(storage.store(cacheEntry(), body: bodyBytes(700)))
            try FileManager.default.removeItem(at: entryFiles(again, in: folder).body)
            #expect(storage.body(of: again) == nil)
            #expect(try storage.variants(of: again.key).isEmpty && fileNames(in: folder).isEmpty)
        }
    }

    @Test("Leftovers of a process that stopped are removed; files of other names, folders, FIFOs and links stay")
    func leftoversAndForeignFiles() async throws {
        try await withCacheFolder { folder in
            let outside = folder.appendingPathComponent("outside", isDirectory: true)
            let cacheFolder = folder.appendingPathComponent("cache", isDirectory: true)
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: cacheFolder, withIntermediateDirectories: true)
            let first = DiskCacheStorage(directory: cacheFolder, maximumBytes: 1 << 20)
            let kept = try #require(first.store(cacheEntry("https://example.com/kept"), body: bodyBytes(10)))
            let linkedEntry = try #require(first.store(cacheEntry("https://example.com/linked"), body: bodyBytes(10)))
            let linked = entryFiles(linkedEntry, in: cacheFolder)

            // A valid head outside the folder, linked to from inside under the cache's own name: never followed.
            let target = outside.appendingPathComponent("target.head")
            try FileManager.default.moveItem(at: linked.head, to: target)
            try FileManager.default.createSymbolicLink(at: linked.head, withDestinationURL: target)
            let bodyTarget = outside.appendingPathComponent("target.body")
            try Data("outside".utf8).write(to: bodyTarget)
            let linkedBody = cacheFolder.appendingPathComponent(
                CacheFileName.body(String(repeating: "b", count: 32), bodyID: 1))
            try FileManager.default.createSymbolicLink(at: linkedBody, withDestinationURL: bodyTarget)
            try FileManager.default.removeItem(at: linked.body)

            let leftovers = [
                ".0123456789abcdef.tmp", CacheFileName.body(String(repeating: "c", count: 32), bodyID: 7),
            ]
            for name in leftovers { try Data("partial".utf8).write(to: cacheFolder.appendingPathComponent(name)) }
            let foreign = ["notes.txt", "README", ".DS_Store", String(repeating: "d", count: 32) + ".HEAD"]
            for name in foreign { try Data("mine".utf8).write(to: cacheFolder.appendingPathComponent(name)) }
            let folderNamedLikeAHead = cacheFolder.appendingPathComponent(
                CacheFileName.head(String(repeating: "e", count: 32)))
            try FileManager.default.createDirectory(at: folderNamedLikeAHead, withIntermediateDirectories: false)
            let fifo = cacheFolder.appendingPathComponent(CacheFileName.head(String(repeating: "f", count: 32)))
            #expect(mkfifo(fifo.path, 0o600) == 0)

            let second = DiskCacheStorage(directory: cacheFolder, maximumBytes: 1 << 20)
            #expect(second.variants(of: kept.key) == [kept])
            #expect(second.variants(of: linkedEntry.key).isEmpty)
            #expect(second.storedBytes == (try chargedSize(of: kept, bodyLength: 10)))
            let names = Set(try fileNames(in: cacheFolder))
            for name in leftovers { #expect(!names.contains(name), "\(name) is removed") }
            for name in foreign { #expect(names.contains(name), "\(name) stays") }
            for url in [folderNamedLikeAHead, fifo, linked.head, linkedBody] {
                #expect(names.contains(url.lastPathComponent), "\(url.lastPathComponent) stays")
            }
            #expect(try Data(contentsOf: bodyTarget) == Data("outside".utf8))
            #expect(try fileNames(in: outside) == ["target.body", "target.head"])

            // Storing the entry again replaces the link itself, never the file it points to.
            let targetBytes = try Data(contentsOf: target)
            let restored = try #require(second.store(cacheEntry("https://example.com/linked"), body: bodyBytes(20)))
            #expect(try Data(contentsOf: target) == targetBytes)
            let attributes = try FileManager.default.attributesOfItem(atPath: linked.head.path)
            #expect(attributes[.type] as? FileAttributeType == .typeRegular)
            #expect(second.body(of: restored) == bodyBytes(20))

            second.removeAll()
            let left = Set(try fileNames(in: cacheFolder))
            #expect(left == Set(foreign + [folderNamedLikeAHead, fifo, linkedBody].map(\.lastPathComponent)))
        }
    }

    static let escapingURLs = [
        "https://example.com/../../../../../../tmp/escaped", "https://example.com/%2E%2E%2F%2E%2E%2Fescaped",
        "https://example.com/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/"
            + String(repeating: "long", count: 400),
        "file:///etc/passwd", "https://example.com/caf\u{E9}/\u{1F600}", "../escaped", "/escaped",
    ]

    @Test("Keys and bodies never leave the folder, whatever the key holds")
    func escapes() async throws {
        try await withCacheFolder { root in
            let folder = root.appendingPathComponent("cache", isDirectory: true)
            let storage = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
            for url in Self.escapingURLs {
                let stored = try #require(storage.store(cacheEntry(url, vary: ["x": "../../y"]), body: bodyBytes(10)))
                #expect(storage.body(of: stored) == bodyBytes(10))
            }
            let refused = [
                CacheEntry(
                    key: CacheEntry.Key(method: "../..", url: "https://example.com/"), status: 200, headers: [:],
                    requestTime: cacheTestStart, responseTime: cacheTestStart),
                cacheEntry("https://example.com/\0/../x"), cacheEntry("https://example.com/a\nb"),
                cacheEntry(vary: ["../x": "1"]), cacheEntry(headers: ["X": "a\r\n"]),
            ]
            for entry in refused { #expect(storage.beginStoring(entry) == nil) }

            #expect(try fileNames(in: root) == ["cache"])
            let names = try fileNames(in: folder)
            #expect(names.count == 2 * Self.escapingURLs.count)
            for name in names { #expect(CacheFileName.kind(of: name) != nil, "\(name) is a name the cache writes") }
            #expect(try fileNames(in: FileManager.default.temporaryDirectory).contains("escaped") == false)
        }
    }

    @Test("Cache files are readable and writable by the owner only, in a folder created owner-only")
    func permissions() async throws {
        try await withCacheFolder { root in
            let folder = root.appendingPathComponent("a/b/cache", isDirectory: true)
            let storage = DiskCacheStorage(directory: folder, maximumBytes: 1 << 20)
            let entry = try #require(storage.store(cacheEntry(), body: bodyBytes(10)))
            func permissions(_ url: URL) throws -> Int? {
                (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
            }
            #expect(try permissions(folder) == 0o700)
            let files = entryFiles(entry, in: folder)
            #expect(try permissions(files.head) == 0o600 && permissions(files.body) == 0o600)
        }
    }

    @Test("A folder that cannot be made stores nothing and answers as an empty cache")
    func unusableFolder() async throws {
        try await withCacheFolder { root in
            let file = root.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: file)
            let storage = DiskCacheStorage(directory: file.appendingPathComponent("cache"), maximumBytes: 1 << 20)
            #expect(storage.store(cacheEntry(), body: bodyBytes(10)) == nil)
            #expect(storage.variants(of: cacheEntry().key).isEmpty && storage.storedBytes == 0)
            storage.removeVariants(of: cacheEntry().key)
            storage.removeAll()
            #expect(try fileNames(in: root) == ["a-file"])
        }
    }
}
