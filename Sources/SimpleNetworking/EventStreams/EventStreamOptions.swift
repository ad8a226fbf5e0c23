import Foundation

/// How an event stream reconnects, and what bounds it.
///
/// Set them for every stream of a client with ``SimpleNetworking/Configuration/eventStreams``, or for one request
/// with ``SimpleRequest/eventStream(_:)``, or change some of the client's for one request with
/// ``SimpleRequest/eventStream(editing:)``:
///
/// ```swift
/// api.post("/jobs/42/progress").eventStream(EventStreamOptions(reconnects: true, idleTimeout: 60))
/// api.get("/feed").eventStream(editing: { $0.reconnects = false })
/// ```
public struct EventStreamOptions: Sendable, Hashable {
    /// Whether the stream reconnects when its connection ends, as a browser's `EventSource` does; `nil` (the
    /// default) reconnects requests whose method is idempotent (GET, for example) and not the others (a POST
    /// reconnects only when this is `true`).
    public var reconnects: Bool?
    /// The wait before reconnecting, in seconds, until the server sends a `retry` field. Default: 3.
    ///
    /// It is the wait after a healthy connection, and the base of ``backoff`` after connections that end soon after
    /// opening.
    public var reconnectionTime: TimeInterval
    /// How long a connection may send nothing (not even a comment) once its response has begun, in seconds; a silent
    /// connection is closed and the stream reconnects, or fails with ``SimpleNetworkingError/eventStreamIdle(seconds:)``
    /// when it does not reconnect. `nil` for no limit. Default: 300 (5 minutes).
    ///
    /// It replaces the attempt timeout once the response has begun: the stream itself may run for hours. Until the
    /// response begins, the request's timeout applies as usual.
    public var idleTimeout: TimeInterval?
    /// The most bytes one line or one event's data may hold; a stream that passes it stops with
    /// ``SimpleNetworkingError/eventTooLarge(limit:)``, and nothing larger is kept in memory. Default: 1 MiB.
    public var maximumEventSize: Int
    /// The most bytes of the body held for a reader that falls behind. Default: ``SimpleRequest/defaultStreamBufferSize``
    /// (8 MiB).
    ///
    /// A transport that can pause (the AsyncHTTPClient engine) reads the connection no further ahead of the reader
    /// than this, so the buffer never overflows. URLSession cannot pause a transfer: over it, a reader that falls
    /// this far behind has the connection closed, the events that arrived before the cut are delivered, and a stream
    /// that reconnects connects again at once with `Last-Event-ID`, for the server to send the rest. A stream that
    /// does not reconnect, or whose last event ID did not move on during the connection (events without IDs), cannot
    /// resume without repeating or skipping events: it throws ``SimpleNetworkingError/streamBufferFull(limit:)``.
    public var bufferSize: Int
    /// How the waits grow when connections end soon after opening, and what resets them. Default:
    /// ``ReconnectionBackoff/init(minimum:multiplier:cap:healthyConnectionTime:)`` with its defaults.
    public var backoff: ReconnectionBackoff

    /// The default maximum event size: 1 MiB.
    public static let defaultMaximumEventSize = 1024 * 1024

    /// Creates options.
    /// - Parameters:
    ///   - reconnects: Whether the stream reconnects; `nil` (the default) for idempotent methods only.
    ///   - reconnectionTime: The wait before reconnecting when the server has sent no `retry`, in seconds. Default: 3.
    ///   - idleTimeout: The longest silence of a connection, in seconds; `nil` for none. Default: 300.
    ///   - maximumEventSize: The most bytes of a line or an event's data. Default: ``defaultMaximumEventSize``.
    ///   - bufferSize: The most bytes held for a reader that falls behind; at least 1. Default:
    ///     ``SimpleRequest/defaultStreamBufferSize`` (8 MiB).
    ///   - backoff: How the waits grow after connections that end soon after opening. Default:
    ///     ``ReconnectionBackoff/init(minimum:multiplier:cap:healthyConnectionTime:)`` with its defaults.
    public init(
        reconnects: Bool? = nil, reconnectionTime: TimeInterval = 3, idleTimeout: TimeInterval? = 300,
        maximumEventSize: Int = defaultMaximumEventSize, bufferSize: Int = SimpleRequest.defaultStreamBufferSize,
        backoff: ReconnectionBackoff = ReconnectionBackoff()
    ) {
        self.reconnects = reconnects
        self.reconnectionTime = reconnectionTime
        self.idleTimeout = idleTimeout
        self.maximumEventSize = maximumEventSize
        self.bufferSize = bufferSize
        self.backoff = backoff
    }

    /// Whether a stream of a request with `method` reconnects.
    func reconnects(for method: HTTPMethod) -> Bool {
        reconnects ?? RetryPolicy.idempotentMethods.contains(method)
    }
}

/// How an event stream's reconnections back off when its connections end soon after opening: a server that ends
/// every connection at once (with `retry: 0`, say) is not reconnected to hundreds of times a second.
///
/// A connection is *healthy* when it stayed open for at least ``healthyConnectionTime`` seconds, from the moment its
/// response began until it ended, as the client's ``SimpleNetworking/Configuration/clock`` tells; any other connection
/// whose event stream began is *short*, whatever it delivered. The wait before the next connection is:
///
/// - after a healthy connection, and after the first short one in a row: the retry time, the server's latest `retry`
///   or ``EventStreamOptions/reconnectionTime``, as a browser's `EventSource` waits;
/// - after the `n`-th short connection in a row, `n` ≥ 2: a random time between half and all of
///   `min(cap, max(retry time, minimum) × multiplier^(n-1))`, with the jitter from the client's
///   ``SimpleNetworking/Configuration/random``, and never less than the retry time (a server's longer `retry` is
///   honoured, past the cap too).
///
/// A healthy connection starts the count again, and so does a connection that the stream closed because its reader
/// fell a whole buffer behind (``EventStreamOptions/bufferSize``, URLSession only): that one is reconnected at once.
///
/// With the defaults, a server that ends every connection at once with `retry: 0` sees the stream reconnect at once,
/// then after 1-2 s, 2-4 s, 4-8 s and so on, up to 30-60 s between connections.
public struct ReconnectionBackoff: Sendable, Hashable {
    /// The least base of the growth, in seconds, for a retry time shorter than it (`retry: 0`). Default: 1.
    public var minimum: TimeInterval
    /// How much the upper bound of the wait grows per short connection in a row. Default: 2.
    public var multiplier: Double
    /// The largest upper bound of the wait, in seconds; a longer `retry` from the server is still honoured. Default: 60.
    public var cap: TimeInterval
    /// How long a connection must stay open, from the moment its response began, to be healthy and start the count
    /// again, in seconds. Default: 5.
    public var healthyConnectionTime: TimeInterval

    /// Creates a backoff.
    /// - Parameters:
    ///   - minimum: The least base of the growth, in seconds. Default: 1.
    ///   - multiplier: The growth of the upper bound per short connection in a row; at least 1. Default: 2.
    ///   - cap: The largest upper bound of the wait, in seconds. Default: 60.
    ///   - healthyConnectionTime: How long a healthy connection stays open, in seconds. Default: 5.
    public init(
        minimum: TimeInterval = 1, multiplier: Double = 2, cap: TimeInterval = 60,
        healthyConnectionTime: TimeInterval = 5
    ) {
        self.minimum = minimum.isNaN ? 0 : max(0, minimum)
        self.multiplier = multiplier.isNaN ? 1 : max(1, multiplier)
        self.cap = cap.isNaN ? 0 : max(0, cap)
        self.healthyConnectionTime = healthyConnectionTime.isNaN ? 0 : max(0, healthyConnectionTime)
    }

    /// The wait before the connection after `shortConnections` short ones in a row.
    /// - Parameters:
    ///   - shortConnections: The short connections in a row, the one that just ended included; 0 after a healthy one.
    ///   - retryTime: The server's latest `retry`, or the options' reconnection time, in seconds.
    ///   - random: A number in `0..<1`.
    /// - Returns: The retry time for up to one short connection; past that, a random time between half and all of
    ///   the grown upper bound, and never less than the retry time.
    public func wait(afterShortConnections shortConnections: Int, retryTime: TimeInterval, random: Double)
        -> TimeInterval
    {
        let retryTime = retryTime.isNaN ? 0 : max(0, retryTime)
        guard shortConnections >= 2 else { return retryTime }
        let grown = max(retryTime, minimum) * pow(multiplier, Double(shortConnections - 1))
        let ceiling = grown.isFinite ? min(cap, grown) : cap
        let jittered = ceiling * (0.5 + 0.5 * min(max(random, 0), 1))
        return max(retryTime, jittered)
    }
}
