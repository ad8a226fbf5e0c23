import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore

/// The `HTTPClient` and the event loop of each request a transport sends.
///
/// A transport that makes its own client makes one `HTTPClient` per event loop of the group, at most
/// `maximumConnectionsPerHost` of them, which share that limit. Every request to a client names that client's loop, and
/// AsyncHTTPClient opens a connection on the loop of the request that asks for it and hands a request an idle
/// connection of its own loop first: so every connection of a client lives on the client's loop, and every response is
/// handled on the loop of the connection that carries it, without a thread switch. A request goes to the client with
/// the fewest of the transport's requests in flight, and on a tie to its origin's home client, drawn by hash per
/// transport: sequential requests to one origin stay on one loop and one connection, concurrent ones spread over every
/// loop, so one origin's traffic uses every core.
///
/// One `HTTPClient` that spread its requests over the loops could not keep them on their connections' loops: a waiting
/// request takes the first connection that frees up, on whichever loop, and every step of its response then switches
/// threads (a request that requires its loop instead opens a connection beyond the limit, closed after that request).
/// So over a client of the user's, every request to one origin names the origin's home loop, as before: one loop then
/// carries that client's connections to the origin. The "Performance" article of the SimpleNetworking documentation
/// has the measurements.
final class ClientLoops: Sendable {
    /// Where one request goes; hand it back to ``finished(_:)`` when the request ends.
    struct Route: Sendable {
        let client: HTTPClient
        let loop: any EventLoop
        /// The index of the client whose count of requests in flight the route raised, `nil` for none.
        fileprivate let slot: Int?
    }

    /// The transport's clients: one per loop of `loops`, or the user's one client for all of them.
    let clients: [HTTPClient]
    /// The loops requests name: loop `i` is client `i`'s when the transport made its clients.
    private let loops: [any EventLoop]
    /// The requests in flight per client when the transport made its clients (then the requests spread), else `nil`.
    private let inFlight: NIOLockedValueBox<[Int]>?
    /// This transport's own draw of home loops for origins.
    private let seed = Int.random(in: .min ... .max)

    /// One client per loop of `group`, at most `maximumConnections` of them, which share that many connections per
    /// host; `makeClient` makes a client with a given share.
    init(group: any EventLoopGroup, maximumConnections: Int, makeClient: (_ connectionsPerHost: Int) -> HTTPClient) {
        let all = Self.loops(of: group)
        let count = min(all.count, max(1, maximumConnections))
        // Another transport with fewer clients than loops starts elsewhere in the group.
        let offset = Int.random(in: 0..<all.count)
        loops = (0..<count).map { all[(offset + $0) % all.count] }
        let total = max(1, maximumConnections)
        clients = (0..<count).map { index in makeClient(total / count + (index < total % count ? 1 : 0)) }
        inFlight = count > 1 ? NIOLockedValueBox(Array(repeating: 0, count: count)) : nil
    }

    /// The user's `client`: every request to one origin on the origin's home loop of the client's group.
    init(borrowing client: HTTPClient) {
        clients = [client]
        loops = Self.loops(of: client.eventLoopGroup)
        inFlight = nil
    }

    /// The route of a request to `scheme://host:port`.
    func route(scheme: String, host: String, port: Int) -> Route {
        guard loops.count > 1 else { return Route(client: clients[0], loop: loops[0], slot: nil) }
        var hasher = Hasher()
        hasher.combine(seed)
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        let home = Int(UInt(bitPattern: hasher.finalize()) % UInt(loops.count))
        guard let inFlight else { return Route(client: clients[0], loop: loops[home], slot: nil) }
        let chosen = inFlight.withLockedValue { counts in
            var chosen = home
            for index in counts.indices where counts[index] < counts[chosen] { chosen = index }
            counts[chosen] += 1
            return chosen
        }
        return Route(client: clients[chosen], loop: loops[chosen], slot: chosen)
    }

    /// The request sent by `route` ended.
    func finished(_ route: Route) {
        guard let slot = route.slot, let inFlight else { return }
        inFlight.withLockedValue { $0[slot] -= 1 }
    }

    /// The loops of `group`; a group that lists none still hands one out.
    private static func loops(of group: any EventLoopGroup) -> [any EventLoop] {
        let loops = Array(group.makeIterator())
        return loops.isEmpty ? [group.next()] : loops
    }
}
