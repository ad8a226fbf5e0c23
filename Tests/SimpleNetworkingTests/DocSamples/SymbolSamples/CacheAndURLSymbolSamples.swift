import Foundation
import SimpleNetworking
import Testing

// The Swift blocks of the `///` comments in Sources/SimpleNetworking/Cache/HTTPCache.swift and
// URL/PathTemplate.swift, between `SYMBOL-SAMPLE: File#name` and `SYMBOL-SAMPLE-END`: `ReadmeTests.SymbolDocs` checks
// that each comment shows its region verbatim.
enum CacheAndURLSymbolSamples {
    static func diskCache(cachesFolder: URL) -> HTTPCache {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Cache/HTTPCache.swift#disk
        let cache = HTTPCache.disk(at: cachesFolder.appendingPathComponent("http"), maximumBytes: 50_000_000)
        print(cache.storedBytes)
        cache.removeAll()
        // SYMBOL-SAMPLE-END
        return cache
    }

    static func pathTemplate() throws -> String {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/URL/PathTemplate.swift#fill
        let template: PathTemplate = "/users/{userID}"
        let path = try template.path(with: ["userID": "42"])  // "/users/42"
        // SYMBOL-SAMPLE-END
        return path
    }
}

@Suite("The cache and path template symbol samples run")
struct CacheAndURLSymbolSampleTests {
    @Test("The template fills its placeholder; the emptied disk cache holds nothing")
    func samples() throws {
        #expect(try CacheAndURLSymbolSamples.pathTemplate() == "/users/42")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("symbol-sample-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(CacheAndURLSymbolSamples.diskCache(cachesFolder: folder).storedBytes == 0)
    }
}
