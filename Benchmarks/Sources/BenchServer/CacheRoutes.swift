import NIOHTTP1

/// The routes of the HTTP cache's benchmark clients: the benchmark's JSON with the header fields that make a private
/// cache answer it fresh, revalidate it, or not store it (<doc:Performance>, "HTTP cache").
enum CacheRoute {
    /// `GET /cached-json`: fresh for a year, so every request after the first is a fresh hit.
    case fresh
    /// `GET /etag-json`: `no-cache` with an `ETag`, so every request after the first is sent with `If-None-Match`
    /// and answered `304 (Not Modified)`.
    case revalidated
    /// `GET /no-store-json`: `no-store`, so every request is a miss that is not stored.
    case noStore

    /// The validator `/etag-json` answers with.
    static let etag = #""bench-1""#

    /// The route of `path`; `nil` when it is not one of the cache routes.
    init?(path: String) {
        switch path {
        case "/cached-json": self = .fresh
        case "/etag-json": self = .revalidated
        case "/no-store-json": self = .noStore
        default: return nil
        }
    }

    /// The answer to a request with `ifNoneMatch` as its `If-None-Match` field: a status, a body and header fields.
    func answer(ifNoneMatch: String?) -> (status: HTTPResponseStatus, body: String, headers: [(String, String)]) {
        switch self {
        case .fresh:
            return (.ok, payload, [("Cache-Control", "max-age=31536000")])
        case .revalidated:
            let headers = [("Cache-Control", "no-cache"), ("ETag", Self.etag)]
            return ifNoneMatch == Self.etag ? (.notModified, "", headers) : (.ok, payload, headers)
        case .noStore:
            return (.ok, payload, [("Cache-Control", "no-store")])
        }
    }
}
