import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import SimpleNetworking
import Tracing

/// Sends the requests of a `SimpleNetworking` client with AsyncHTTPClient, on SwiftNIO's event loops.
///
/// ```swift
/// let transport = AsyncHTTPClientTransport()
/// let client = SimpleNetworking(baseURL: url, transport: transport)
/// // ...
/// client.close()  // or transport.close(): shuts down the transport's HTTPClient
/// ```
///
/// Pick it for servers on Linux and for many requests at once: it keeps a pool of connections per host on SwiftNIO's
/// event loops, and costs a fraction of URLSession's CPU and memory per request. One origin's requests spread over the
/// event loops of the group, and each response is handled on the loop of the connection that carries it, without a
/// thread switch ("Lifecycle" in the AsyncHTTPClient engine article). The client's behaviour is the same as over
/// URLSession: redirects come back as responses and the client follows them by its rules, the body size limit stops a
/// body as it arrives, counted after decompression, and failures arrive in the same categories. It streams both ways
/// with backpressure, and sends bodies on any method and to IPv6-literal hosts.
///
/// TLS: the client's `TLSPolicy` (trust roots added to the system's or instead of them, a client identity from PEM or
/// PKCS #12, a minimum version) becomes a `TLSConfiguration`, made once per policy (``tlsEnforcement``): the
/// transport sends a policy's HTTPS requests through clients of its own made with it, for its first four policies;
/// under further policies, and over a client of yours, each request carries it. Public-key pins are not enforced:
/// AsyncHTTPClient has no certificate-verification callback, so the client refuses an HTTPS request that a pin applies
/// to, before sending it.
///
/// Lifecycle: a transport made with ``init(configuration:eventLoopGroup:)`` owns its `HTTPClient`s, one per event
/// loop of the group (at most ``Configuration/maximumConnectionsPerHost`` of them, which share that limit).
/// ``close()`` starts their shutdown and returns at once: requests in flight end with
/// `SimpleNetworkingError.cancelled`, and later ones fail with a `transportFailed` that says the transport was closed.
/// ``shutdown()`` does the same and waits until the connections are closed. A transport released without either is
/// shut down by its `deinit`. A transport made with ``init(client:)`` sends over a client of yours and never shuts it
/// down; over it, every request to one origin runs on one event loop of the client's group. The event loops are not
/// the transport's: by default they are SwiftNIO's process-wide group, which lives as long as the process, so no
/// event loop is ever started or leaked per transport.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// Settings of the transport's `HTTPClient`, frozen when the transport is made.
    public struct Configuration: Sendable {
        /// The most HTTP/1.1 connections open at once to one host; requests beyond them wait for a free one.
        /// The transport's clients, one per event loop, share them. Default: 8.
        public var maximumConnectionsPerHost: Int = 8
        /// How long an idle connection stays open for the next request, in seconds. Default: 60.
        public var idleTimeout: TimeInterval = 60
        /// How long making a connection may take, in seconds, within the request's own timeout. Default: 10.
        public var connectTimeout: TimeInterval = 10
        /// Whether HTTPS connections may use HTTP/2 when the server offers it. Default: `true`.
        public var allowsHTTP2 = true

        /// Creates the default settings.
        public init() {}
    }

    /// The transport's client, or the first of its clients when it made one per event loop. Use it for what the
    /// library does not do; do not shut down a client the transport made: ``close()`` does.
    public let client: HTTPClient
    /// The parts of a `TLSPolicy` the transport enforces on HTTPS requests: trust roots added to the system's or
    /// instead of them, a client identity from PEM or from PKCS #12, and a minimum TLS version, each set in the
    /// `TLSConfiguration` of the transport's clients for the policy, or of the request (AsyncHTTPClient keeps a pool
    /// of connections per configuration). Not
    /// public-key pins: AsyncHTTPClient offers no certificate-verification callback, so the client refuses an HTTPS
    /// request that a pin applies to. On Apple platforms, over Network.framework's event loops (AsyncHTTPClient's
    /// default group there), only the minimum version: AsyncHTTPClient cannot hand the other parts to
    /// Network.framework; pass a `MultiThreadedEventLoopGroup` for them all.
    public let tlsEnforcement: TLSRequirements
    private let closed = NIOLockedValueBox(false)
    /// The transport's clients and the loop of each request.
    private let clientLoops: ClientLoops
    /// The transport's clients for TLS policies other than the system's defaults; `nil` over a client of the user's.
    private let policyClients: PolicyClients?
    private let tlsConfigurations = TLSConfigurations()
    /// The requests in flight over a client that is not the transport's, which ``close()`` cancels; `nil` for the
    /// transport's own client, whose shutdown cancels them.
    private let borrowedClientRequests: NIOLockedValueBox<[ObjectIdentifier: RequestLaunch]>?

    /// Creates a transport with its own `HTTPClient`s, one per event loop of `eventLoopGroup` up to
    /// ``Configuration/maximumConnectionsPerHost`` of them.
    /// - Parameters:
    ///   - configuration: The client's settings. Default: ``Configuration/init()``.
    ///   - eventLoopGroup: The event loops the client runs on. Default: `HTTPClient.defaultEventLoopGroup`, SwiftNIO's
    ///     process-wide group, which is never shut down.
    public init(
        configuration: Configuration = Configuration(),
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup
    ) {
        let makeClients: @Sendable (TLSConfiguration?) -> ClientLoops = { tls in
            ClientLoops(group: eventLoopGroup, maximumConnections: configuration.maximumConnectionsPerHost) {
                var share = configuration
                share.maximumConnectionsPerHost = $0
                var settings = Self.clientConfiguration(share)
                settings.tlsConfiguration = tls
                return HTTPClient(eventLoopGroup: eventLoopGroup, configuration: settings)
            }
        }
        clientLoops = makeClients(nil)
        policyClients = PolicyClients(make: makeClients)
        client = clientLoops.clients[0]
        tlsEnforcement = Self.tlsEnforcement(on: eventLoopGroup)
        borrowedClientRequests = nil
    }

    /// Creates a transport that sends over `client`, a client of yours, for settings the transport's
    /// ``Configuration`` does not have (a proxy, DNS overrides, a TLS configuration of your own).
    ///
    /// Make the client's configuration with ``clientConfiguration(_:)`` and change only what you need: the client
    /// must not follow redirects (the `SimpleNetworking` client follows them by its rules) nor decompress bodies (the
    /// transport decodes them, counted against the size limit). HTTP/2 is the client's `httpVersion`. The
    /// transport never shuts the client down: ``close()`` and ``shutdown()`` cancel the requests it has in flight and
    /// refuse later ones, and shutting the client down stays yours. Every request to one origin runs on one event loop
    /// of the client's group, where AsyncHTTPClient opens its connections to that origin; a transport with its own
    /// clients spreads an origin's requests over every loop. The TLS policy is enforced as over the
    /// transport's own client (``tlsEnforcement``): an HTTPS request under a policy other than the system's defaults
    /// carries a `TLSConfiguration` of its own, made from NIOSSL's client defaults and the policy, in place of the
    /// client's; under the system's defaults, the client's own TLS configuration applies.
    /// - Parameter client: The client to send with; it must outlive the transport's requests.
    public init(client: HTTPClient) {
        self.client = client
        clientLoops = ClientLoops(borrowing: client)
        policyClients = nil
        tlsEnforcement = Self.tlsEnforcement(on: client.eventLoopGroup)
        borrowedClientRequests = NIOLockedValueBox([:])
    }

    /// The `HTTPClient` settings that give the library's transport behaviour: no redirects followed, no
    /// decompression by AsyncHTTPClient, the timeouts, pool and HTTP version of `configuration`. Start from these to
    /// make a client of your own for ``init(client:)``.
    /// - Parameter configuration: The transport's settings. Default: ``Configuration/init()``.
    /// - Returns: AsyncHTTPClient's configuration.
    public static func clientConfiguration(_ configuration: Configuration = Configuration()) -> HTTPClient.Configuration
    {
        var settings = HTTPClient.Configuration()
        // The client follows redirects itself, by its own rules, and sees every hop.
        settings.redirectConfiguration = .disallow
        // Bodies are decoded by `ResponseStreamer` as the reader takes them, in bounded pieces counted against the
        // size limit (`ContentDecoder`), not ahead of the reader in the connection's pipeline.
        settings.decompression = .disabled
        settings.timeout = .init(connect: .nanoseconds(nanoseconds(configuration.connectTimeout)))
        var pool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .nanoseconds(nanoseconds(configuration.idleTimeout)),
            concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, configuration.maximumConnectionsPerHost))
        // A refused connection fails the attempt at once, as over URLSession; the client's retry policy decides.
        pool.retryConnectionEstablishment = false
        settings.connectionPool = pool
        settings.httpVersion = configuration.allowsHTTP2 ? .automatic : .http1Only
        // No tracer bootstrapped: no spans. A span of the no-op tracer still names and annotates itself for every
        // request, about a tenth of the engine's instructions per request.
        if InstrumentationSystem.tracer is NoOpTracer { settings.tracing.tracer = nil }
        return settings
    }

    /// Everything streams: response bodies piece by piece with backpressure, and body files read from disk as they
    /// are sent; and a cancelled transfer cancels its request.
    public var capabilities: TransportCapabilities { [.streaming, .transferCancellation] }

    /// Sends `request` and streams its response to `transfer` as it arrives.
    ///
    /// The next piece of the body is read from the connection only once `transfer` has taken the last. A body file
    /// is read from disk in pieces as the connection takes them, with `Content-Length` from the file's size, and the
    /// request body's progress reported as it is written. Any method may carry a body, and any host AsyncHTTPClient
    /// reaches (IPv6 literals included) may be sent to.
    /// - Parameters:
    ///   - request: The request, already validated, with every header merged in.
    ///   - options: The attempt's timeout, from sending to the last byte of the body, and body size limit.
    ///   - transfer: Receives the head and the decoded body.
    /// - Returns: The response's head, whatever its status; a 3xx is returned, not followed.
    /// - Throws: `SimpleNetworkingError.transportFailed` with the failure's category when no complete response
    ///   arrived (a response that is not valid HTTP names what the parser refused), `.responseTooLarge(limit:)` when
    ///   the decoded body passes `options.maximumResponseBodySize`, `.cancelled` when the calling task is cancelled,
    ///   a `transportFailed` that says the transport was closed after ``close()``, and what `transfer` throws.
    public func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        if closed.withLockedValue({ $0 }) { throw Self.closedError }
        let outgoing: HTTPClient.Request
        let bodySize: Int64?
        var tls: TLSConfiguration?
        var clientLoops = clientLoops
        if !options.tls.isSystemDefault, request.url.scheme?.lowercased() == "https" {
            tls = try tlsConfigurations.configuration(
                for: options.tls, host: request.url.host, enforced: tlsEnforcement)
            // The policy's own clients, whose configuration it is, when the transport has them (`PolicyClients`).
            var policy = options.tls
            policy.pins = []
            if let configuration = tls, let clients = policyClients?.clients(for: policy, configuration: configuration)
            {
                clientLoops = clients
                tls = nil
            }
        }
        do {
            let body: HTTPClient.Body?
            (body, bodySize) = try Self.body(of: request, eventLoopGroup: client.eventLoopGroup)
            outgoing = try HTTPClient.Request(
                url: request.url, method: NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue),
                headers: Self.headers(of: request), body: body, tlsConfiguration: tls)
        } catch let error as SimpleNetworkingError {
            throw error
        } catch {
            throw Self.failure(error, afterHead: false)
        }
        let streamer = ResponseStreamer(
            transfer: transfer, maximumBodySize: options.maximumResponseBodySize, url: request.url,
            bodySize: bodySize)
        let deadline = NIODeadline.now() + .nanoseconds(Self.nanoseconds(options.timeout))
        let origin = ClientLoops.Origin(scheme: outgoing.scheme, host: outgoing.host, port: outgoing.port)
        let routes = clientLoops
        let launch = RequestLaunch()
        if let borrowedClientRequests {
            let key = ObjectIdentifier(launch)
            borrowedClientRequests.withLockedValue { $0[key] = launch }
            // A close() between the check above and this registration has not seen the launch.
            if closed.withLockedValue({ $0 }) { launch.cancel() }
        }
        defer {
            if let borrowedClientRequests {
                let key = ObjectIdentifier(launch)
                _ = borrowedClientRequests.withLockedValue { $0.removeValue(forKey: key) }
            }
        }
        do {
            return try await transfer.withCancellationHandler {
                try await withUnsafeThrowingContinuation { continuation in
                    // Started on the loop of the request's client, where that client's connections are, in one switch
                    // of threads: there, AsyncHTTPClient's task, its deadline and the callback below need no lock nor
                    // wake-up of the loop each, and an idle connection of the loop writes the request at once (the
                    // "Performance" article of the SimpleNetworking documentation). A request beyond every client's
                    // share of the origin's connections starts when one of them ends (`ClientLoops`).
                    routes.start(
                        origin, id: ObjectIdentifier(launch), deadline: deadline, isCancelled: { launch.isCancelled }
                    ) { route in
                        guard let route else {
                            let reason = launch.isCancelled ? HTTPClientError.cancelled : .deadlineExceeded
                            return continuation.resume(throwing: reason)
                        }
                        guard !launch.isCancelled else {
                            routes.finished(route, multiplexed: false)
                            return continuation.resume(throwing: HTTPClientError.cancelled)
                        }
                        let task = route.client.execute(
                            request: outgoing, delegate: streamer, eventLoop: .delegate(on: route.loop),
                            deadline: deadline)
                        task.futureResult.whenComplete { result in
                            let http2 = (try? result.get())?.httpVersion == .http2
                            routes.finished(route, multiplexed: http2)
                            continuation.resume(with: result)
                        }
                        launch.started(task)
                    }
                }
            } onCancel: {
                launch.cancel()
                routes.giveUp(origin, ObjectIdentifier(launch))
            }
        } catch {
            if transfer.isCancelled { throw .cancelled }
            if closed.withLockedValue({ $0 }) { throw Self.closedError }
            throw Self.failure(error, afterHead: streamer.receivedHead, overTLS: outgoing.scheme == "https")
        }
    }

    /// The error of a request sent after ``close()`` or ``shutdown()``: not a cancellation by the caller.
    static let closedError = SimpleNetworkingError.transportFailed(
        TransportFailure(
            .other, detail: "the AsyncHTTPClientTransport was closed (close() or shutdown() was called); make a new one"
        ))

    /// The request's body for AsyncHTTPClient, and its size: a body file is read from disk piece by piece as the
    /// connection takes it, never whole.
    private static func body(of request: HTTPRequest, eventLoopGroup: any EventLoopGroup) throws -> (
        HTTPClient.Body?, Int64?
    ) {
        guard let file = request.bodyFile else {
            return (request.body.map { .bytes($0) }, request.body.map { Int64($0.count) })
        }
        let eventLoop = eventLoopGroup.any()
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        guard let size = (attributes?[.size] as? NSNumber)?.int64Value,
            FileManager.default.isReadableFile(atPath: file.path)
        else {
            throw SimpleNetworkingError.invalidRequest(reason: "the body file \(file.lastPathComponent) cannot be read")
        }
        let body = HTTPClient.Body.stream(contentLength: size) { writer in
            let done = eventLoop.makePromise(of: Void.self)
            Task {
                do {
                    try await BodyFileReader.send(file, size: size, to: writer)
                    done.succeed()
                } catch {
                    done.fail(error)
                }
            }
            return done.futureResult
        }
        return (body, size)
    }

    /// Starts shutting the transport's clients down and returns at once: requests in flight end with
    /// `SimpleNetworkingError.cancelled`, later ones fail with an error that says the transport was closed. Calling it
    /// again does nothing.
    ///
    /// It never blocks, so it is safe on any thread, an event loop's or Swift's cooperative pool's; ``shutdown()``
    /// waits for the end.
    public func close() {
        guard
            closed.withLockedValue({ closed in
                defer { closed = true }; return !closed
            })
        else { return }
        if let borrowedClientRequests {
            let launches = borrowedClientRequests.withLockedValue { Array($0.values) }
            for launch in launches { launch.cancel() }
            return
        }
        // Each client keeps itself alive until its shutdown completes.
        for client in clientLoops.clients + (policyClients?.close() ?? []) {
            client.shutdown(queue: .global()) { _ in }
        }
    }

    /// Shuts the transport's clients down and waits until their connections are closed: requests in flight end with
    /// `SimpleNetworkingError.cancelled`, later ones fail with an error that says the transport was closed. After
    /// ``close()`` it returns at once. Over a client of yours (``init(client:)``) it only cancels the transport's
    /// requests in flight, as ``close()`` does, and leaves the client running.
    /// - Throws: The first error of a client that did not shut down cleanly.
    public func shutdown() async throws {
        if borrowedClientRequests != nil { return close() }
        guard
            closed.withLockedValue({ closed in
                defer { closed = true }; return !closed
            })
        else { return }
        var failure: (any Error)?
        for client in clientLoops.clients + (policyClients?.close() ?? []) {
            do { try await client.shutdown() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }

    /// A transport released without ``close()`` still shuts its own client down; a client of yours is left running.
    deinit {
        close()
    }

    // MARK: Conversions

    /// The request's header fields in order, repeated names kept apart, with `Accept-Encoding` offered when the
    /// request does not name one, as URLSession does: bodies come back decoded.
    private static func headers(of request: HTTPRequest) -> NIOHTTP1.HTTPHeaders {
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(request.headers.count + 1)
        var namesEncoding = false
        for field in request.headers {
            headers.add(name: field.name, value: field.value)
            if !namesEncoding, field.name.utf8.count == 15, field.name.lowercased() == "accept-encoding" {
                namesEncoding = true
            }
        }
        if !namesEncoding { headers.add(name: "Accept-Encoding", value: "gzip, deflate") }
        return headers
    }

    /// `seconds` in whole nanoseconds, clamped so that the conversion cannot overflow: a year is as good as never here.
    static func nanoseconds(_ seconds: TimeInterval) -> Int64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int64(min(seconds, 365 * 86_400) * 1_000_000_000)
    }
}
