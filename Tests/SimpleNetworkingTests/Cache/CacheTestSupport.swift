import Foundation
import SimpleNetworking
import Testing

/// A fresh folder under the temporary directory, removed after `body`.
func withCacheFolder<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// 2025-06-15, the time cache tests live at.
let cacheTestStart = Date(timeIntervalSince1970: 1_750_000_000)

/// The key of a `GET` of `url`.
func cacheKey(_ url: String, method: HTTPMethod = .get) -> CacheEntry.Key {
    CacheEntry.Key(method: method.rawValue, url: url)
}

/// The head of a `200` to store.
func cacheEntry(
    _ url: String = "https://api.example.com/v1/items", vary: [String: String?] = [:],
    headers: HTTPHeaders = ["Content-Type": "application/json", "ETag": "\"1\""], status: Int = 200
) -> CacheEntry {
    CacheEntry(
        key: cacheKey(url), varyValues: vary, status: status, headers: headers, requestTime: cacheTestStart,
        responseTime: cacheTestStart.addingTimeInterval(0.25))
}

/// The size an entry is charged: its encoded head and its body.
func chargedSize(of entry: CacheEntry, bodyLength: Int) throws -> Int {
    try entry.encodedHead().count + bodyLength
}

/// The names in `folder`, sorted.
func fileNames(in folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
}

/// Bytes of a given length, each a function of its position and `seed`, so bodies of different entries differ.
func bodyBytes(_ count: Int, seed: UInt8 = 0) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}
