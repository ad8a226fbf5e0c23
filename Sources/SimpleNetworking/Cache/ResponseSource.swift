/// Where a response came from: the server, the client's HTTP cache, or the cache after the server confirmed it
/// (``SimpleNetworking/Configuration/cache``, <doc:HTTPCaching>).
public enum ResponseSource: Sendable, Hashable, CustomStringConvertible {
    /// From the server, in answer to this request.
    case network
    /// From the cache, without asking the server: a fresh stored response, or a stale one the request or the
    /// response allows (`max-stale`, `stale-while-revalidate`, `stale-if-error`), or the cache's `504` for an
    /// `only-if-cached` request it cannot answer. Its `Age` header says how old it is.
    case cache
    /// From the cache after the server confirmed it with `304 Not Modified`: the stored body, with the stored header
    /// fields updated from the `304`'s.
    case revalidated

    /// `network`, `cache` or `revalidated`.
    public var description: String {
        switch self {
        case .network: "network"
        case .cache: "cache"
        case .revalidated: "revalidated"
        }
    }
}
