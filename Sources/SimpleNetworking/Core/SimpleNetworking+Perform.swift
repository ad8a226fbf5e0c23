import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SimpleNetworking {
    /// Sends one attempt through the transport and returns its final response.
    func perform(_ request: URLRequest, options: TransportOptions) async throws(SimpleNetworkingError)
        -> SimpleResponse
    {
        try await transport.send(request, options: options)
    }
}
