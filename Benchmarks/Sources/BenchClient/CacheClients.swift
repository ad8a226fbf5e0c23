import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient

/// The HTTP cache's clients (`bash Benchmarks/run --cache`, <doc:Performance>, "HTTP cache"), over URLSession
/// (`library-…`) or the engine (`library-ahc-…`), against bench-server's cache routes:
///   library-cache-fresh, library-ahc-cache-fresh              a memory cache, `GET /cached-json` (max-age): every
///                                                             request after the first is a fresh hit
///   library-cache-revalidated, library-ahc-cache-revalidated  a memory cache, `GET /etag-json` (no-cache, ETag):
///                                                             every request after the first is a 304 merged
///   library-cache-disk-miss, library-ahc-cache-disk-miss      a disk cache, `GET /no-store-json` (no-store): every
///                                                             request is a miss, looked up and not stored
///   library-no-store, library-ahc-no-store                    no cache, `GET /no-store-json`: the disk miss's
///                                                             baseline
///   library-conditional, library-ahc-conditional              no cache, `GET /etag-json` with the validator in
///                                                             `If-None-Match`: a 304 every time, the exchange a
///                                                             revalidated hit makes, without the cache's work
///   library-max-age-no-cache, library-ahc-max-age-no-cache    no cache, `GET /cached-json`: the fresh hit's request
///                                                             over the network
///   library-etag-no-cache, library-ahc-etag-no-cache          no cache, `GET /etag-json`: the revalidated hit's
///                                                             request over the network
/// The fresh and revalidated hits compare with their own requests without a cache (the last two), and with
/// `library-response` and `library-ahc` (`GET /json`, no cache, a response with two header fields fewer).
func makeCacheClient(named name: String, url: URL) -> (any Client)? {
    let engine = name.hasPrefix("library-ahc-")
    let kind = engine ? name.dropFirst("library-ahc-".count) : name.dropFirst("library-".count)
    guard name.hasPrefix("library-"), let setup = CacheClient.Setup(rawValue: String(kind)) else { return nil }
    return CacheClient(
        url: url, setup: setup, transport: engine ? AsyncHTTPClientTransport() : nil)
}

/// The library's `response()` with a cache set up one way, checking where each response came from.
struct CacheClient: Client {
    /// The cache, the route and the source every response after the first must have.
    enum Setup: String {
        case fresh = "cache-fresh"
        case revalidated = "cache-revalidated"
        case diskMiss = "cache-disk-miss"
        case noStore = "no-store"
        case conditional = "conditional"
        case maxAgeNoCache = "max-age-no-cache"
        case etagNoCache = "etag-no-cache"

        /// The route of bench-server this setup asks for.
        var path: String {
            switch self {
            case .fresh, .maxAgeNoCache: "/cached-json"
            case .revalidated, .conditional, .etagNoCache: "/etag-json"
            case .diskMiss, .noStore: "/no-store-json"
            }
        }

        /// Where every response after the first comes from.
        var source: ResponseSource {
            switch self {
            case .fresh: .cache
            case .revalidated: .revalidated
            case .diskMiss, .noStore, .conditional, .maxAgeNoCache, .etagNoCache: .network
            }
        }

        /// The status of every response after the first.
        var status: Int { self == .conditional ? 304 : 200 }
    }

    let api: SimpleNetworking
    let setup: Setup
    /// The disk cache's folder, removed by ``close()``.
    let folder: URL?
    /// Whether the first response has come: it fills the cache, from the network.
    let started = FirstResponse()

    init(url: URL, setup: Setup, transport: (any HTTPTransport)?) {
        var configuration = SimpleNetworking.Configuration()
        switch setup {
        case .fresh, .revalidated:
            configuration.cache = .memory(maximumBytes: 1 << 20)
            folder = nil
        case .diskMiss:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-cache-\(UUID())")
            configuration.cache = .disk(at: folder, maximumBytes: 1 << 20)
            self.folder = folder
        case .noStore, .conditional, .maxAgeNoCache, .etagNoCache:
            folder = nil
        }
        let base = url.deletingLastPathComponent()
        api =
            transport.map { SimpleNetworking(baseURL: base, transport: $0, configuration: configuration) }
            ?? SimpleNetworking(baseURL: base, configuration: configuration)
        self.setup = setup
    }

    func fetch() async throws -> Int {
        let response: SimpleResponse
        if setup == .conditional {
            // The validator bench-server's /etag-json sends (CacheRoute.etag in BenchServer/CacheRoutes.swift). A 304
            // is not a success without a cache: it comes with the error (a little more work than a success).
            do {
                response = try await api.get(setup.path).header("If-None-Match", #""bench-1""#).response()
            } catch {
                guard let notModified = error.response else { throw error }
                response = notModified
            }
        } else {
            response = try await api.get(setup.path).response()
        }
        let later = started.next()
        let expected = later ? setup.source : .network
        let status = setup == .conditional || later ? setup.status : 200
        guard response.statusCode == status, response.source == expected else { throw BenchError.status }
        return response.body.count
    }

    func close() async {
        api.close()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}

/// Says whether a response is the first one, once: requests run one after another, the lock only keeps it Sendable.
final class FirstResponse: @unchecked Sendable {
    // @unchecked Sendable: `seen` is read and written under `lock` only.
    private let lock = NSLock()
    private var seen = false

    /// `false` the first time, `true` after.
    func next() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        defer { seen = true }
        return seen
    }
}
