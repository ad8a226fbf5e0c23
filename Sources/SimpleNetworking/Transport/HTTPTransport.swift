import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What sends one request over the network and returns the complete response.
///
/// The library's own transport uses URLSession; `MockTransport` in `SimpleNetworkingTesting` answers from memory.
/// A transport is called once per hop: it must not follow redirects itself, but return the 3xx response; redirects,
/// retries and handlers are the client's job. It takes and returns the library's own values (``HTTPRequest``,
/// ``SimpleResponse``), keeps repeated header fields apart, frames the body itself, and reports failures as a
/// ``TransportFailure``. `TransportConformance` in `SimpleNetworkingTesting` checks a transport against all of this.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole response.
    ///
    /// A body larger than `options.maximumResponseBodySize` should be stopped as it arrives with
    /// ``SimpleNetworkingError/responseTooLarge(limit:)``; the client also checks the size of what is returned.
    /// Cancelling the calling task must stop the request and throw ``SimpleNetworkingError/cancelled``.
    /// - Parameters:
    ///   - request: The request, already validated, with every header merged in.
    ///   - options: Limits for this attempt.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``SimpleNetworkingError/transportFailed(_:attempts:)`` with a ``TransportFailure`` of the right
    ///   category when no complete response arrived, ``SimpleNetworkingError/responseTooLarge(limit:)``, or
    ///   ``SimpleNetworkingError/cancelled``.
    func send(_ request: HTTPRequest, options: TransportOptions) async throws(SimpleNetworkingError) -> SimpleResponse

    /// Sends `request` and streams its response body to `transfer` as it arrives, for downloads, response streams,
    /// uploads from a file and progress.
    ///
    /// The request body is ``HTTPRequest/body``, or the file at ``HTTPRequest/bodyFile``, read as it is sent. The
    /// body-size limit counts the bytes given to `transfer`. A transport that does not stream need not implement
    /// this: the default sends with ``send(_:options:)``, the whole body in memory, and then hands it over.
    /// - Parameters:
    ///   - request: The request, already validated, with every header merged in.
    ///   - options: Limits for this attempt.
    ///   - transfer: Receives the response's head and body, and hears of the request body's progress.
    /// - Returns: The response, whatever its status, with an empty body: the body went to `transfer`.
    /// - Throws: What ``send(_:options:)`` throws, and any error `transfer` throws.
    func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse

    /// Stops the transport: requests in flight are cancelled and no new ones can be sent.
    func close()
}

extension HTTPTransport {
    /// Does nothing: a transport with no resources to release need not implement `close()`.
    public func close() {}
}

/// Limits a transport applies to one request on the wire.
public struct TransportOptions: Sendable {
    /// The time the request may take, in seconds, from sending to the last byte of the body.
    public var timeout: TimeInterval
    /// The largest body accepted, in bytes, counted after decompression.
    public var maximumResponseBodySize: Int

    /// Creates options.
    /// - Parameters:
    ///   - timeout: The time the request may take, in seconds.
    ///   - maximumResponseBodySize: The largest body accepted, in bytes. Default: `Int.max`, no limit.
    public init(timeout: TimeInterval, maximumResponseBodySize: Int = .max) {
        self.timeout = timeout
        self.maximumResponseBodySize = maximumResponseBodySize
    }
}
