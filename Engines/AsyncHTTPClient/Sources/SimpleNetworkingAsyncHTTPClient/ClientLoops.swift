import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore

/// The `HTTPClient` and the event loop of each request a transport sends, and when it starts.
///
/// A transport that makes its own client makes one `HTTPClient` per event loop of the group, at most
/// `maximumConnectionsPerHost` of them, which share that limit. Every request to a client names that client's loop, and
/// AsyncHTTPClient opens a connection on the loop of the request that asks for it and hands a request an idle
/// connection of its own loop first: so every connection of a client lives on the client's loop, and every response is
/// handled on the loop of the connection that carries it, without a thread switch. A request goes to the client with
/// the fewest of the transport's requests to its origin in flight, and on a tie to its origin's home client, drawn by
/// hash per transport: sequential requests to one origin stay on one loop and one connection, concurrent ones spread
/// over every loop, so one origin's traffic uses every core.
///
/// A client holds at most its share of an origin's requests at once, its share of its connections: a request beyond
/// every client's share waits here, in order, and starts on the first client whose request to that origin ends, on that
/// client's loop. Left to a client's own queue, it would wait for that client's connections alone while another
/// client's stood idle (a stream that never ends would hold it for good). Once an origin has answered over HTTP/2,
/// whose connection carries many requests at once, its requests no longer wait for a share.
///
/// One `HTTPClient` that spread its requests over the loops could not keep them on their connections' loops: a waiting
/// request takes the first connection that frees up, on whichever loop, and every step of its response then switches
/// threads (a request that requires its loop instead opens a connection beyond the limit, closed after that request).
/// So over a client of the user's, every request to one origin names the origin's home loop, as before: one loop then
/// carries that client's connections to the origin. The "Performance" article of the SimpleNetworking documentation
/// has the measurements.
final class ClientLoops: Sendable {
    /// Where one request runs; hand it back to ``finished(_:multiplexed:)`` when the request ends.
    struct Route: Sendable {
        let client: HTTPClient
        let loop: any EventLoop
        /// The index of the client whose share the route holds, `nil` for none.
        fileprivate let slot: Int?
        fileprivate let origin: Origin?
    }

    /// The scheme, host and port of a request.
    struct Origin: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int
    }

    /// A request that waits for a share.
    private struct Waiter {
        let id: ObjectIdentifier
        let start: @Sendable (Route?) -> Void
        var timeout: Scheduled<Void>?
    }

    /// One origin's requests in flight per client, and the requests that wait; an idle one is kept for the next
    /// request, up to ``keptOrigins`` of them.
    private struct OriginState {
        /// The index of the origin's home client.
        let home: Int
        var inFlight: [Int]
        var waiting: [Waiter] = []
        /// Whether a response came over HTTP/2: then requests do not wait for a share.
        var multiplexed = false

        var isIdle: Bool { waiting.isEmpty && !inFlight.contains { $0 > 0 } }
    }

    /// The transport's clients: one per loop of `loops`, or the user's one client for all of them.
    let clients: [HTTPClient]
    /// The loops requests name: loop `i` is client `i`'s when the transport made its clients.
    private let loops: [any EventLoop]
    /// Each client's share of an origin's connections.
    private let shares: [Int]
    /// The state of each origin with requests, when the transport made several clients (then requests spread), else
    /// `nil`.
    private let origins: NIOLockedValueBox<[Origin: OriginState]>?
    /// This transport's own draw of home loops for origins.
    private let seed = Int.random(in: .min ... .max)
    /// How many origins keep their state while no request to them is in flight.
    private static let keptOrigins = 64

    /// One client per loop of `group`, at most `maximumConnections` of them, which share that many connections per
    /// host; `makeClient` makes a client with a given share.
    init(group: any EventLoopGroup, maximumConnections: Int, makeClient: (_ connectionsPerHost: Int) -> HTTPClient) {
        let all = Self.loops(of: group)
        let count = min(all.count, max(1, maximumConnections))
        // Another transport with fewer clients than loops starts elsewhere in the group.
        let offset = Int.random(in: 0..<all.count)
        loops = (0..<count).map { all[(offset + $0) % all.count] }
        let total = max(1, maximumConnections)
        shares = (0..<count).map { total / count + ($0 < total % count ? 1 : 0) }
        clients = shares.map(makeClient)
        origins = count > 1 ? NIOLockedValueBox([:]) : nil
    }

    /// The user's `client`: every request to one origin on the origin's home loop of the client's group.
    init(borrowing client: HTTPClient) {
        clients = [client]
        loops = Self.loops(of: client.eventLoopGroup)
        shares = [Int.max]
        origins = nil
    }

    /// Runs `start` on the loop of a route for request `id` to `origin`: at once when a client has room for it,
    /// else when a request to the origin ends. `start` gets `nil` instead when the request gives up waiting: it was
    /// cancelled (`isCancelled`, then ``giveUp(_:_:)``) or its `deadline` passed.
    func start(
        _ origin: Origin, id: ObjectIdentifier, deadline: NIODeadline, isCancelled: @Sendable () -> Bool,
        _ start: @escaping @Sendable (Route?) -> Void
    ) {
        guard let origins else {
            let route = Route(
                client: clients[0], loop: loops[loops.count > 1 ? home(of: origin) : 0], slot: nil, origin: nil)
            return route.loop.execute { start(route) }
        }
        var home = 0
        enum Outcome { case route(Route), waiting, cancelled }
        let outcome = update(origin, in: origins) { state -> Outcome in
            home = state.home
            if let index = choose(in: state, first: state.home) {
                state.inFlight[index] += 1
                return .route(route(index, origin))
            }
            if isCancelled() { return .cancelled }
            state.waiting.append(Waiter(id: id, start: start))
            return .waiting
        }
        switch outcome {
        case .route(let route):
            route.loop.execute { start(route) }
        case .cancelled:
            start(nil)
        case .waiting:
            let timeout = loops[home].scheduleTask(deadline: deadline) { self.giveUp(origin, id) }
            let stored = update(origin, in: origins) { state in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return false }
                state.waiting[index].timeout = timeout
                return true
            }
            if !stored { timeout.cancel() }
        }
    }

    /// Request `id` to `origin` no longer waits: when it was waiting, its start runs now with `nil`.
    func giveUp(_ origin: Origin, _ id: ObjectIdentifier) {
        guard let origins else { return }
        let waiter = update(origin, in: origins) { state -> Waiter? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index)
        }
        guard let waiter else { return }
        waiter.timeout?.cancel()
        waiter.start(nil)
    }

    /// The request on `route` ended, its response over HTTP/2 (`multiplexed`) or not: the requests waiting for its
    /// share start, on its client first.
    func finished(_ route: Route, multiplexed: Bool) {
        guard let origins, let slot = route.slot, let origin = route.origin else { return }
        let started = update(origin, in: origins) { state -> [(Waiter, Route)] in
            state.inFlight[slot] -= 1
            if multiplexed { state.multiplexed = true }
            var started: [(Waiter, Route)] = []
            while !state.waiting.isEmpty, let index = choose(in: state, first: slot) {
                state.inFlight[index] += 1
                started.append((state.waiting.removeFirst(), self.route(index, origin)))
            }
            return started
        }
        for (waiter, route) in started {
            waiter.timeout?.cancel()
            route.loop.execute { waiter.start(route) }
        }
    }

    /// Runs `body` on the state of `origin`, in place, under the lock; drops the state when it is left idle and more
    /// than ``keptOrigins`` origins have one.
    private func update<Result>(
        _ origin: Origin, in origins: NIOLockedValueBox<[Origin: OriginState]>,
        _ body: (inout OriginState) -> Result
    ) -> Result {
        let count = clients.count
        return origins.withLockedValue { all in
            let result = body(
                &all[origin, default: OriginState(home: home(of: origin), inFlight: Array(repeating: 0, count: count))])
            if all.count > Self.keptOrigins, all[origin]?.isIdle == true { all[origin] = nil }
            return result
        }
    }

    /// The client with room for one more request and the fewest in flight, the first found from `first` on a tie;
    /// `nil` when none has room.
    private func choose(in state: OriginState, first: Int) -> Int? {
        var chosen: Int?
        for step in 0..<clients.count {
            let index = (first + step) % clients.count
            guard state.multiplexed || state.inFlight[index] < shares[index] else { continue }
            if let best = chosen, state.inFlight[best] <= state.inFlight[index] { continue }
            chosen = index
        }
        return chosen
    }

    private func route(_ index: Int, _ origin: Origin) -> Route {
        Route(client: clients[index], loop: loops[index], slot: index, origin: origin)
    }

    /// The origin's home: the index of its loop, by this transport's own hash.
    private func home(of origin: Origin) -> Int {
        var hasher = Hasher()
        hasher.combine(seed)
        hasher.combine(origin)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(loops.count))
    }

    /// The loops of `group`; a group that lists none still hands one out.
    private static func loops(of group: any EventLoopGroup) -> [any EventLoop] {
        let loops = Array(group.makeIterator())
        return loops.isEmpty ? [group.next()] : loops
    }
}
