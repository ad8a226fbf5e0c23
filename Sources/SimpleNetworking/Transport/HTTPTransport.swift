import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What sends one request over the network: it hands the response's head, then its body as it arrives, to an
/// ``HTTPTransfer``.
///
/// The library's own transport uses URLSession; `MockTransport` in `SimpleNetworkingTesting` answers from memory.
/// A transport is called once per hop: it must not follow redirects itself, but return the 3xx response; redirects,
/// retries and handlers are the client's job. It takes and returns the library's own values (``HTTPRequest``,
/// ``SimpleResponse``), keeps repeated header fields apart, frames the body itself, and reports failures as a
/// ``TransportFailure``. Collecting a body into memory is not its job: ``send(_:options:)`` does that above it,
/// counting bytes as they arrive. `TransportConformance` in `SimpleNetworkingTesting` checks a transport against all
/// of this, streaming included.
public protocol HTTPTransport: Sendable {
    /// What the transport can stream; the client refuses downloads, response streams, uploads from a file and
    /// progress on a transport that cannot, with ``SimpleNetworkingError/unsupportedByTransport(reason:)``, rather
    /// than hold a body in memory behind the caller's back.
    var capabilities: TransportCapabilities { get }

    /// The parts of a ``TLSPolicy`` this transport enforces on the HTTPS requests it sends (the policy arrives in
    /// ``TransportOptions/tls``). The client refuses, before sending, an HTTPS request whose policy asks for a part not
    /// in this set, with ``SimpleNetworkingError/unsupportedByTransport(reason:)``: a policy is never silently
    /// ignored. Default: none, so a transport written before TLS policies existed refuses every policy but the
    /// system's defaults.
    var tlsEnforcement: TLSRequirements { get }

    /// Sends `request` and hands its response to `transfer`: the head once, then each piece of the body, in order,
    /// as it arrives.
    ///
    /// The request body is ``HTTPRequest/body``, or the file at ``HTTPRequest/bodyFile``, read as it is sent (only
    /// when ``capabilities`` has ``TransportCapabilities/streamsRequestBody``). Each piece goes to
    /// ``HTTPTransfer/deliver(_:)``, which returns once the consumer has taken it: a transport that can pause reads
    /// the next piece only then. One that cannot (URLSession on Linux cannot pause libcurl) calls
    /// ``HTTPTransfer/receive(_:)`` instead, and the consumer fails the transfer when its buffer is full. A declared
    /// `Content-Length` is never a reason to allocate. The body-size limit in `options` counts decoded bytes. A body
    /// the transport decodes keeps its `Content-Encoding` field in the head: a download resumes only from bytes that
    /// are the representation's own (<doc:LargeTransfers>). Cancelling the calling task must stop the request and throw ``SimpleNetworkingError/cancelled``; so must
    /// cancelling the transfer, for a transport that declares ``TransportCapabilities/transferCancellation``.
    /// - Parameters:
    ///   - request: The request, already validated, with every header merged in.
    ///   - options: Limits for this attempt.
    ///   - transfer: Receives the response's head and body, and hears of the request body's progress.
    /// - Returns: The response, whatever its status, with an empty body: the body went to `transfer`.
    /// - Throws: ``SimpleNetworkingError/transportFailed(_:attempts:)`` with a ``TransportFailure`` of the right
    ///   category when no complete response arrived, ``SimpleNetworkingError/responseTooLarge(limit:)``,
    ///   ``SimpleNetworkingError/cancelled``, ``SimpleNetworkingError/unsupportedByTransport(reason:)`` for a request
    ///   the transport cannot send, and any error `transfer` throws.
    func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse

    /// Stops the transport: requests in flight are cancelled and no new ones can be sent.
    func close()
}

extension HTTPTransport {
    /// Does nothing: a transport with no resources to release need not implement `close()`.
    public func close() {}

    /// None: a transport enforces no part of a ``TLSPolicy`` unless it says so.
    public var tlsEnforcement: TLSRequirements { [] }

    /// Sends `request` and collects its whole response in memory, counting the body's bytes as they arrive and
    /// stopping at `options.maximumResponseBodySize`: the layer above the transport that ``SimpleRequest/response(on:)``
    /// and decoding use.
    /// - Parameters:
    ///   - request: The request, already validated, with every header merged in.
    ///   - options: Limits for this attempt.
    /// - Returns: The response, whatever its status, with its whole body.
    /// - Throws: What ``send(_:options:transfer:)`` throws, and ``SimpleNetworkingError/responseTooLarge(limit:)``
    ///   once the body passes the limit.
    public func send(_ request: HTTPRequest, options: TransportOptions) async throws(SimpleNetworkingError)
        -> SimpleResponse
    {
        try await collect(request, options: options, signal: nil)
    }

    /// ``send(_:options:)`` for the client, whose transfer `signal` may cancel as well as the calling task, and whose
    /// `timer`, when something listens to events, marks the response head's arrival.
    func collect(
        _ request: HTTPRequest, options: TransportOptions, signal: CancellationSignal?, timer: AttemptTimer? = nil
    ) async throws(SimpleNetworkingError) -> SimpleResponse {
        let collector = BodyCollector(limit: options.maximumResponseBodySize)
        let head = try await send(request, options: options, transfer: collector.transfer(signal: signal, timer: timer))
        return head.with(body: collector.body)
    }
}

/// What a transport can stream, stated by ``HTTPTransport/capabilities``.
public struct TransportCapabilities: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int

    /// Creates a set from its bits.
    /// - Parameter rawValue: The bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Response bodies reach the transfer piece by piece as they arrive, never collected first, in memory bounded
    /// whatever their size: downloads, response streams and download progress need it.
    public static let streamsResponseBody = TransportCapabilities(rawValue: 1 << 0)
    /// A body file (``HTTPRequest/bodyFile``) is read as it is sent, never into memory, and its progress reported
    /// while it goes: uploads from a file and upload progress need it.
    public static let streamsRequestBody = TransportCapabilities(rawValue: 1 << 1)

    /// The transport stops a request when its transfer is cancelled, not only when the calling task is: it waits
    /// for the network inside ``HTTPTransfer/withCancellationHandler(_:onCancel:isolation:)``. ``SimpleRequest/response(on:)``
    /// runs in the caller's task; on a transport with this, its attempts do too, and ``SimpleRequest/cancel()`` stops
    /// them through the transfer; on one without, each attempt runs in a task of its own, which `cancel()` cancels.
    public static let transferCancellation = TransportCapabilities(rawValue: 1 << 2)

    /// Everything: streamed responses and streamed request bodies.
    public static let streaming: TransportCapabilities = [.streamsResponseBody, .streamsRequestBody]
}

/// Limits a transport applies to one request on the wire.
public struct TransportOptions: Sendable {
    /// The time the request may take, in seconds, from sending to the last byte of the body.
    public var timeout: TimeInterval
    /// The largest body accepted, in bytes, counted after decompression.
    public var maximumResponseBodySize: Int
    /// What an HTTPS connection must satisfy: the client's ``SimpleNetworking/Configuration/tls``. The client has
    /// already refused a request whose policy asks for a part outside ``HTTPTransport/tlsEnforcement``.
    public var tls: TLSPolicy

    /// Creates options.
    /// - Parameters:
    ///   - timeout: The time the request may take, in seconds.
    ///   - maximumResponseBodySize: The largest body accepted, in bytes. Default: `Int.max`, no limit.
    ///   - tls: What an HTTPS connection must satisfy. Default: ``TLSPolicy/system``.
    public init(timeout: TimeInterval, maximumResponseBodySize: Int = .max, tls: TLSPolicy = .system) {
        self.timeout = timeout
        self.maximumResponseBodySize = maximumResponseBodySize
        self.tls = tls
    }
}

extension TransportOptions {
    /// The longest timeout a transport is handed, in seconds: 10,000,000 (about 116 days). Public as
    /// ``SimpleNetworking/Configuration/maximumTimeout``, whose documentation says why.
    static let maximumTimeout: TimeInterval = 10_000_000

    /// `seconds` as a timeout a transport can be handed: clamped to ``maximumTimeout``; `nil` for zero, negative
    /// values and NaN, which mean a default. The one rule for every timeout: a request's
    /// (``SimpleRequest/timeout(_:)``) and the client's, made usable when they are set, and the options the URLSession
    /// transport is given, which anyone may fill.
    static func usableTimeout(_ seconds: TimeInterval?) -> TimeInterval? {
        guard let seconds, seconds > 0 else { return nil }  // NaN > 0 is false
        return min(seconds, maximumTimeout)
    }
}

/// Collects a body in memory for ``HTTPTransport/send(_:options:)``, counting it as it arrives.
struct BodyCollector: Sendable {
    private let limit: Int
    private let collected = Locked(Data())

    init(limit: Int) {
        self.limit = limit
    }

    var body: Data { collected.withLock { $0 } }

    /// The callbacks the transport calls; with a `timer`, the head's arrival costs one clock read, and without one
    /// nothing.
    func transfer(signal: CancellationSignal?, timer: AttemptTimer? = nil) -> HTTPTransfer {
        // Typed as HTTPTransfer takes it: converting a closure that does not throw would wrap it in an allocated
        // thunk on every request.
        let head: @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Void
        if let timer { head = { _ in timer.responseHeadArrived() } } else { head = { _ in } }
        return HTTPTransfer(
            head: head,
            body: { [limit, collected] bytes throws(SimpleNetworkingError) in
                let fits = collected.withLock { body in
                    guard bytes.count <= limit - body.count else { return false }
                    body.append(bytes)
                    return true
                }
                guard fits else { throw .responseTooLarge(limit: limit) }
            },
            signal: signal)
    }
}
