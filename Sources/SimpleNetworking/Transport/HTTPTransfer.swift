import Foundation

/// The streamed side of one request on the wire: where a transport delivers the response body as it arrives, and
/// tells how much of the request body it has sent.
///
/// The client makes one for each hop of a download, a response stream, an upload from a file, or a request with a
/// progress handler, and passes it to ``HTTPTransport/send(_:options:transfer:)``. A transport calls
/// ``receive(head:)`` once when the status and headers arrive, then ``receive(_:)`` for each piece of the body, in
/// order, never concurrently. An error either of them throws must stop the transfer, and the transport then fails
/// with that error.
public final class HTTPTransfer: Sendable {
    private let head: @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Void
    private let body: @Sendable (Data) throws(SimpleNetworkingError) -> Void
    private let sent: @Sendable (Int64, Int64?) -> Void

    /// Creates a transfer from its three callbacks, for a transport's own tests.
    /// - Parameters:
    ///   - head: Receives the status and headers, with an empty body.
    ///   - body: Receives each piece of the body.
    ///   - sent: Receives the request-body bytes sent so far and the total, when known. Default: ignores them.
    public init(
        head: @escaping @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Void,
        body: @escaping @Sendable (Data) throws(SimpleNetworkingError) -> Void,
        sent: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in }
    ) {
        self.head = head
        self.body = body
        self.sent = sent
    }

    /// Receives the status and headers of the response, before any of its body.
    /// - Parameter response: The response, with an empty body.
    /// - Throws: The error to stop the transfer with.
    public func receive(head response: SimpleResponse) throws(SimpleNetworkingError) {
        try head(response)
    }

    /// Receives the next piece of the response body, decoded.
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
}

extension HTTPTransport {
    /// Sends `request` with the whole response in memory, then hands it to `transfer`: the default for transports
    /// that do not stream.
    ///
    /// A body file (``HTTPRequest/bodyFile``) is read into memory first, and the body-size limit applies to the
    /// whole response, so memory is not bounded; the library's own transport streams in both directions instead.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: Limits for this attempt.
    ///   - transfer: Where the body goes.
    /// - Returns: The response with an empty body: the body went to `transfer`.
    /// - Throws: What ``send(_:options:)`` throws, what `transfer` throws, and
    ///   ``SimpleNetworkingError/invalidRequest(reason:)`` when the body file cannot be read.
    public func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        try await sendBuffered(request, options: options, transfer: transfer)
    }

    /// The default ``send(_:options:transfer:)``: the whole response in memory, then handed to `transfer`.
    func sendBuffered(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        var request = request
        if let file = request.bodyFile {
            request.body = try HTTPRequest.contents(of: file)
            request.bodyFile = nil
        }
        let response = try await send(request, options: options)
        let size = Int64(request.body?.count ?? 0)
        if size > 0 { transfer.didSend(size, of: size) }
        let head = SimpleResponse(statusCode: response.statusCode, headers: response.headers, url: response.url)
        try transfer.receive(head: head)
        if !response.body.isEmpty { try transfer.receive(response.body) }
        return head
    }
}

extension HTTPRequest {
    /// The bytes of a body file, for transports that send bodies from memory.
    /// - Throws: ``SimpleNetworkingError/invalidRequest(reason:)`` when the file cannot be read.
    static func contents(of file: URL) throws(SimpleNetworkingError) -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw .invalidRequest(reason: "the body file \(file.lastPathComponent) cannot be read")
        }
    }
}
