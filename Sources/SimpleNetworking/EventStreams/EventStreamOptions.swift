import Foundation

/// How an event stream reconnects, and what bounds it.
///
/// Set them for every stream of a client with ``SimpleNetworking/Configuration/eventStreams``, or for one request
/// with ``SimpleRequest/eventStream(_:)``:
///
/// ```swift
/// api.post("/jobs/42/progress").eventStream(EventStreamOptions(reconnects: true, idleTimeout: 60))
/// ```
public struct EventStreamOptions: Sendable, Hashable {
    /// Whether the stream reconnects when its connection ends, as a browser's `EventSource` does; `nil` (the
    /// default) reconnects requests whose method is idempotent (GET, for example) and not the others (a POST
    /// reconnects only when this is `true`).
    public var reconnects: Bool?
    /// The wait before reconnecting, in seconds, until the server sends a `retry` field. Default: 3.
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

    /// The default maximum event size: 1 MiB.
    public static let defaultMaximumEventSize = 1024 * 1024

    /// Creates options.
    /// - Parameters:
    ///   - reconnects: Whether the stream reconnects; `nil` (the default) for idempotent methods only.
    ///   - reconnectionTime: The wait before reconnecting when the server has sent no `retry`, in seconds. Default: 3.
    ///   - idleTimeout: The longest silence of a connection, in seconds; `nil` for none. Default: 300.
    ///   - maximumEventSize: The most bytes of a line or an event's data. Default: ``defaultMaximumEventSize``.
    public init(
        reconnects: Bool? = nil, reconnectionTime: TimeInterval = 3, idleTimeout: TimeInterval? = 300,
        maximumEventSize: Int = defaultMaximumEventSize
    ) {
        self.reconnects = reconnects
        self.reconnectionTime = reconnectionTime
        self.idleTimeout = idleTimeout
        self.maximumEventSize = maximumEventSize
    }

    /// Whether a stream of a request with `method` reconnects.
    func reconnects(for method: HTTPMethod) -> Bool {
        reconnects ?? RetryPolicy.idempotentMethods.contains(method)
    }
}
