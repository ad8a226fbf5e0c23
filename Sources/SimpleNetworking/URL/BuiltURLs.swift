import Foundation

/// The URLs a client's base URL has built, by path and query, so that a request for a path already built reuses its
/// URL instead of encoding the path and parsing the text again: about 5,000 instructions on Linux, most of them in
/// `URL(string:)` (<doc:Performance>).
///
/// Building a URL from a base URL, a path and a query is a pure function of the three, and a new base URL (a
/// provider's next value) comes with a new cache, so a kept URL is always the one building would give. At most
/// ``capacity`` URLs are kept: past that the cache starts over, so paths that never repeat (an identifier in each)
/// cost one lookup and one insertion each, and memory stays bounded.
final class BuiltURLs: Sendable {
    /// A path and an already-encoded query, as `BaseURL.url(forPath:query:)` takes them.
    struct Key: Hashable, Sendable {
        let path: String
        let query: String
    }

    /// The most URLs kept at once.
    static let capacity = 64

    private let urls = Locked<[Key: URL]>([:])

    /// The URL built for `key`, if it is kept.
    func url(for key: Key) -> URL? {
        urls.withLock { $0[key] }
    }

    /// Keeps `url` as the one built for `key`, starting over when ``capacity`` URLs are kept.
    func keep(_ url: URL, for key: Key) {
        urls.withLock { urls in
            if urls.count >= Self.capacity { urls.removeAll(keepingCapacity: true) }
            urls[key] = url
        }
    }
}
