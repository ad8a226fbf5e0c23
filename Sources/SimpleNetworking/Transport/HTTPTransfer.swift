import Foundation

/// Where a transport delivers one response as it arrives, and tells how much of the request body it has sent.
///
/// The client makes one for each hop and passes it to ``HTTPTransport/send(_:options:transfer:)``. A transport calls
/// ``receive(head:)`` once when the status and headers arrive, then ``deliver(_:)`` (or ``receive(_:)``, or
/// ``receiveIfReady(_:)`` before ``deliver(_:)``) for each piece of the body, in order, never concurrently. An error
/// any of them throws must stop the transfer, and the transport then fails with that error. The client may cancel a
/// transfer without cancelling the task that sends it (see ``withCancellationHandler(_:onCancel:isolation:)``).
public final class HTTPTransfer: Sendable {
    private let head: @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Void
    private let body: @Sendable (Data) throws(SimpleNetworkingError) -> Void
    private let pacedBody: (@Sendable (Data) async throws(SimpleNetworkingError) -> Void)?
    private let readyBody: (@Sendable (Data) throws(SimpleNetworkingError) -> Bool)?
    private let sent: @Sendable (Int64, Int64?) -> Void
    /// The client's cancellation of the request, when it runs in its caller's task; `nil` when only the task's own
    /// cancellation applies.
    @usableFromInline
    let signal: CancellationSignal?

    /// Creates a transfer from its three callbacks, for a transport's own tests.
    /// - Parameters:
    ///   - head: Receives the status and headers, with an empty body.
    ///   - body: Receives each piece of the body; the piece has been taken when it returns.
    ///   - sent: Receives the request-body bytes sent so far and the total, when known. Default: ignores them.
    public convenience init(
        head: @escaping @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Void,
        body: @escaping @Sendable (Data) throws(SimpleNetworkingError) -> Void,
        sent: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in }
    ) {
        self.init(head: head, body: body, sent: sent, signal: nil)
    }

    /// A transfer the client made for one hop, or `TransportConformance` for its check. With `pacedBody`, the reader
    /// may be slower than the network: `pacedBody` waits for room, `body` fails without it, and `readyBody` takes a
    /// piece only when there is room (without it, ``receiveIfReady(_:)`` answers `false` and a transport waits on
    /// ``deliver(_:)``).
    package init(
        head: @escaping @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Void,
        body: @escaping @Sendable (Data) throws(SimpleNetworkingError) -> Void,
        pacedBody: (@Sendable (Data) async throws(SimpleNetworkingError) -> Void)? = nil,
        readyBody: (@Sendable (Data) throws(SimpleNetworkingError) -> Bool)? = nil,
        sent: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in }, signal: CancellationSignal?
    ) {
        self.head = head
        self.body = body
        self.pacedBody = pacedBody
        self.readyBody = readyBody
        self.sent = sent
        self.signal = signal
    }

    /// Whether the request was cancelled: its calling task, or the transfer itself by the client.
    public var isCancelled: Bool { Task.isCancelled || signal?.isCancelled == true }

    /// Runs `operation`, the transport's wait for the request, and calls `handler` if the request is cancelled
    /// meanwhile (at once when it already was): there the transport stops the request, which then throws
    /// ``SimpleNetworkingError/cancelled``.
    ///
    /// It stands for `withTaskCancellationHandler` and covers both ways a request is cancelled: its calling task, and
    /// the client's ``SimpleRequest/cancel()`` of a request that runs in its caller's task, which cannot cancel that
    /// task. A transport whose ``HTTPTransport/capabilities`` include ``TransportCapabilities/transferCancellation``
    /// waits for the network inside it.
    /// - Parameters:
    ///   - operation: The wait for the request.
    ///   - handler: Stops the request; it may run on any thread, concurrently with `operation`, at most once.
    ///   - isolation: The caller's actor, inherited.
    /// - Returns: What `operation` returns.
    /// - Throws: What `operation` throws.
    @inlinable
    public func withCancellationHandler<Value>(
        _ operation: () async throws -> Value, onCancel handler: @escaping @Sendable () -> Void,
        isolation: isolated (any Actor)? = #isolation
    ) async rethrows -> Value {
        // Inlinable, so that a transport's call is specialized for its own types, with no generic metadata to look
        // up at run time on every request.
        let registration = signal?.register(handler)
        defer { if let registration { signal?.unregister(registration) } }
        return try await withTaskCancellationHandler(operation: operation, onCancel: handler, isolation: isolation)
    }

    /// Whether the body's reader runs at its own pace (a response stream read by another task), so that
    /// ``deliver(_:)`` may wait. When `false`, ``receive(_:)`` takes every piece at once, and a transport on an
    /// event loop may call it there instead of awaiting ``deliver(_:)``.
    public var waitsForReader: Bool { pacedBody != nil }

    /// Receives the status and headers of the response, before any of its body.
    /// - Parameter response: The response, with an empty body.
    /// - Throws: The error to stop the transfer with.
    public func receive(head response: SimpleResponse) throws(SimpleNetworkingError) {
        try head(response)
    }

    /// Hands the next piece of the response body, decoded, to its reader, and returns once the reader has taken it:
    /// a transport that can pause reads the next piece from the network only then (backpressure).
    /// - Parameter bytes: The bytes, in order after those delivered before.
    /// - Throws: The error to stop the transfer with, such as ``SimpleNetworkingError/responseTooLarge(limit:)``, or
    ///   ``SimpleNetworkingError/cancelled`` when the reader went away.
    public func deliver(_ bytes: Data) async throws(SimpleNetworkingError) {
        if let pacedBody { try await pacedBody(bytes) } else { try body(bytes) }
    }

    /// Hands the next piece of the response body, decoded, to a reader at its own pace without waiting, when the
    /// reader has room for it: a transport that can pause calls it before ``deliver(_:)``, so that it holds nothing
    /// back while the reader keeps up, and awaits ``deliver(_:)`` only when this returns `false`.
    ///
    /// For a transfer that does not wait for its reader (``waitsForReader`` is `false`) it is ``receive(_:)``, and
    /// returns `true`.
    /// - Parameter bytes: The bytes, in order after those delivered before.
    /// - Returns: `true` when the reader took the bytes; `false`, taking nothing, when it has no room for them now.
    /// - Throws: The error to stop the transfer with, as ``deliver(_:)`` describes.
    public func receiveIfReady(_ bytes: Data) throws(SimpleNetworkingError) -> Bool {
        guard pacedBody != nil else {
            try body(bytes)
            return true
        }
        guard let readyBody else { return false }
        return try readyBody(bytes)
    }

    /// Hands the next piece of the response body, decoded, to its reader without waiting, for a transport that
    /// cannot pause the network: a reader that is too far behind stops the transfer with
    /// ``SimpleNetworkingError/streamBufferFull(limit:)``.
    /// - Parameter bytes: The bytes, in order after those received before.
    /// - Throws: The error to stop the transfer with, such as ``SimpleNetworkingError/responseTooLarge(limit:)``.
    public func receive(_ bytes: Data) throws(SimpleNetworkingError) {
        try body(bytes)
    }

    /// Tells how much of the request body has been sent.
    /// - Parameters:
    ///   - bytesSent: The bytes sent so far.
    ///   - bytesExpected: The size of the whole body, or `nil` when unknown.
    public func didSend(_ bytesSent: Int64, of bytesExpected: Int64?) {
        sent(bytesSent, bytesExpected)
    }

    /// Hands over a response a transport already holds whole: its head, then its body in one piece. For transports
    /// that do not stream (their ``HTTPTransport/capabilities`` say so) and for test doubles.
    /// - Parameter response: The whole response.
    /// - Returns: The response with an empty body: the body went to the transfer.
    /// - Throws: What ``receive(head:)`` and ``deliver(_:)`` throw.
    public func deliver(whole response: SimpleResponse) async throws(SimpleNetworkingError) -> SimpleResponse {
        let head = response.head
        try receive(head: head)
        if !response.body.isEmpty { try await deliver(response.body) }
        return head
    }
}

extension HTTPRequest {
    /// The bytes of a body file, for multipart forms built in memory.
    /// - Throws: ``SimpleNetworkingError/invalidRequest(reason:)`` when the file cannot be read.
    static func contents(of file: URL) throws(SimpleNetworkingError) -> Data {
        do {
            return try FileContents.read(file)
        } catch {
            throw .invalidRequest(reason: "the body file \(file.lastPathComponent) cannot be read")
        }
    }
}
