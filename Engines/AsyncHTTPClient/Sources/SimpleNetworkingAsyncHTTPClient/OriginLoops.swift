import NIOCore

/// The event loop of each origin: every request a transport sends to one origin (scheme, host and port) runs on the
/// same loop of the group, so every connection to that origin lives there.
///
/// AsyncHTTPClient's delegate API runs a request's delegate on the loop the request names, prefers an idle connection
/// on that loop and opens new connections there. When the connection it takes lives on another loop, each step of the
/// response (head, body, end) switches threads to reach the delegate. With a loop per request that happened, on two
/// loops, to 3-13% of those steps at c=8 and 21-39% at c=64; with one loop per origin no response switches.
/// The price: one thread carries all of a transport's connections to one origin. Each transport draws its own mapping,
/// so two transports to one origin spread over the loops. The "Performance" article of the SimpleNetworking
/// documentation has the measurements.
struct OriginLoops: Sendable {
    private let loops: [any EventLoop]
    /// This transport's own draw of loops for origins.
    private let seed = Int.random(in: .min ... .max)

    init(_ group: any EventLoopGroup) {
        let loops = Array(group.makeIterator())
        // A group lists its loops; one that lists none still hands one out.
        self.loops = loops.isEmpty ? [group.next()] : loops
    }

    /// The loop of the origin `scheme://host:port`.
    func loop(scheme: String, host: String, port: Int) -> any EventLoop {
        guard loops.count > 1 else { return loops[0] }
        var hasher = Hasher()
        hasher.combine(seed)
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
        return loops[Int(UInt(bitPattern: hasher.finalize()) % UInt(loops.count))]
    }
}
