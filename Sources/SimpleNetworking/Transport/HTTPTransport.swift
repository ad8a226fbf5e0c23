import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What sends one request over the network and returns the complete response.
///
/// The library's own transport uses URLSession; `MockTransport` in `SimpleNetworkingTesting` answers from memory.
/// A transport is called once per attempt; retries and handlers are the client's job.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole response.
    ///
    /// Cancelling the calling task must stop the request and throw ``SimpleNetworkingError/cancelled``.
    /// - Parameters:
    ///   - request: The request, already validated, with every header merged in.
    ///   - options: Limits for this attempt.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``SimpleNetworkingError/transportFailed(_:)`` when no complete response arrived, or
    ///   ``SimpleNetworkingError/cancelled``.
    func send(_ request: URLRequest, options: TransportOptions) async throws(SimpleNetworkingError) -> SimpleResponse

    /// Stops the transport: requests in flight are cancelled and no new ones can be sent.
    func close()
}

extension HTTPTransport {
    /// Does nothing: a transport with no resources to release need not implement `close()`.
    public func close() {}
}

/// Limits a transport applies to one attempt.
public struct TransportOptions: Sendable {
    /// The time the attempt may take, in seconds, from sending to the last byte of the body.
    public var timeout: TimeInterval

    /// Creates options.
    /// - Parameter timeout: The time the attempt may take, in seconds.
    public init(timeout: TimeInterval) {
        self.timeout = timeout
    }
}
