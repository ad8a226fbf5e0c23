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
        /// The requests to the route's origin whose share the route holds, `nil` for none: its end is counted there
        /// without looking the origin up again.
        fileprivate let state: OriginState?
    }

    /// The scheme, host and port of a request.
    struct Origin: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int
    }

    /// A request that waits for a share.
    fileprivate struct Waiter {
        let id: ObjectIdentifier
        let start: @Sendable (Route?) -> Void
        var timeout: Scheduled<Void>?
    }

    /// The origins with state, and the last one a request went to, which the next request to it finds without hashing
    /// its origin (most transports send to one origin).
    private struct Origins {
        /// Every origin with state.
        var byOrigin: [Origin: OriginState] = [:]
        /// The origin the last request went to, one of ``byOrigin``.
        var last: OriginState?
    }

    /// The transport's clients: one per loop of `loops`, or the user's one client for all of them.
    let clients: [HTTPClient]
    /// The loops requests name: loop `i` is client `i`'s when the transport made its clients.
    private let loops: [any EventLoop]
    /// Each client's share of an origin's connections.
    private let shares: [Int]
    /// The state of each origin with requests, when the transport made several clients (then requests spread), else
    /// `nil`.
    private let origins: NIOLockedValueBox<Origins>?
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
        origins = count > 1 ? NIOLockedValueBox(Origins()) : nil
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
                client: clients[0], loop: loops[loops.count > 1 ? home(of: origin) : 0], slot: nil, state: nil)
            return route.loop.execute { start(route) }
        }
        enum Outcome { case route(Route), waiting(OriginState), cancelled }
        let outcome = origins.withLockedValue { all -> Outcome in
            let state = self.state(of: origin, in: &all)
            defer { Self.dropIfIdle(state, from: &all) }
            if let index = choose(in: state, first: state.home) {
                state.inFlight[index] += 1
                return .route(route(index, state))
            }
            if isCancelled() { return .cancelled }
            state.waiting.append(Waiter(id: id, start: start))
            return .waiting(state)
        }
        switch outcome {
        case .route(let route):
            route.loop.execute { start(route) }
        case .cancelled:
            start(nil)
        case .waiting(let state):
            let timeout = loops[state.home].scheduleTask(deadline: deadline) { self.giveUp(origin, id) }
            let stored = origins.withLockedValue { _ in
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
        let waiter = origins.withLockedValue { all -> Waiter? in
            guard let state = all.last?.origin == origin ? all.last : all.byOrigin[origin],
                let index = state.waiting.firstIndex(where: { $0.id == id })
            else { return nil }
            defer { Self.dropIfIdle(state, from: &all) }
            return state.waiting.remove(at: index)
        }
        guard let waiter else { return }
        waiter.timeout?.cancel()
        waiter.start(nil)
    }

    /// The request on `route` ended, its response over HTTP/2 (`multiplexed`) or not: the requests waiting for its
    /// share start, on its client first.
    func finished(_ route: Route, multiplexed: Bool) {
        guard let origins, let slot = route.slot, let state = route.state else { return }
        let started = origins.withLockedValue { all -> [(Waiter, Route)] in
            state.inFlight[slot] -= 1
            if multiplexed { state.multiplexed = true }
            var started: [(Waiter, Route)] = []
            while !state.waiting.isEmpty, let index = choose(in: state, first: slot) {
                state.inFlight[index] += 1
                started.append((state.waiting.removeFirst(), self.route(index, state)))
            }
            Self.dropIfIdle(state, from: &all)
            return started
        }
        for (waiter, route) in started {
            waiter.timeout?.cancel()
            route.loop.execute { waiter.start(route) }
        }
    }

    /// The state of `origin` among `all`, made now when it has none; it becomes the last one found. Call under the
    /// lock.
    private func state(of origin: Origin, in all: inout Origins) -> OriginState {
        if let last = all.last, last.origin == origin { return last }
        let state: OriginState
        if let found = all.byOrigin[origin] {
            state = found
        } else {
            state = OriginState(origin, home: home(of: origin), clients: clients.count)
            all.byOrigin[origin] = state
        }
        all.last = state
        return state
    }

    /// Drops the state of an origin left idle when more than ``keptOrigins`` origins have one. Call under the lock.
    private static func dropIfIdle(_ state: OriginState, from all: inout Origins) {
        guard all.byOrigin.count > keptOrigins, state.isIdle else { return }
        all.byOrigin[state.origin] = nil
        if all.last === state { all.last = nil }
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

    private func route(_ index: Int, _ state: OriginState) -> Route {
        Route(client: clients[index], loop: loops[index], slot: index, state: state)
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

/// One origin's requests in flight per client of a ``ClientLoops``, and the requests that wait; an idle one is kept for
/// the next request, up to `ClientLoops.keptOrigins` of them.
// @unchecked Sendable: read and changed only under the lock of the ClientLoops that made it; a route carries it so
// that the request's end is counted without looking its origin up again.
private final class OriginState: @unchecked Sendable {
    /// The origin whose requests these are.
    let origin: ClientLoops.Origin
    /// The index of the origin's home client.
    let home: Int
    /// The origin's requests in flight on each client, by the client's index.
    var inFlight: [Int]
    /// The requests that wait for a share, first come first.
    var waiting: [ClientLoops.Waiter] = []
    /// Whether a response came over HTTP/2: then requests do not wait for a share.
    var multiplexed = false

    /// No request in flight to `origin` on any of `clients` clients, none waiting.
    init(_ origin: ClientLoops.Origin, home: Int, clients: Int) {
        self.origin = origin
        self.home = home
        inFlight = Array(repeating: 0, count: clients)
    }

    /// Whether no request to the origin is in flight or waiting.
    var isIdle: Bool { waiting.isEmpty && !inFlight.contains { $0 > 0 } }
}
