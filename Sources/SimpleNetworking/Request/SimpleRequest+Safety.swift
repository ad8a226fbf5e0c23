import Foundation

extension SimpleRequest {
    /// Sets which redirects this request follows.
    ///
    /// Default: the client's ``SimpleNetworking/Configuration/redirectPolicy``, which follows up to 10.
    /// - Parameter policy: The policy, such as ``RedirectPolicy/doNotFollow`` to see the 3xx response itself.
    /// - Returns: This request.
    @discardableResult
    public func redirects(_ policy: RedirectPolicy) -> Self {
        update { $0.parts.safety.redirectPolicy = policy }
    }

    /// Sets the largest response body this request accepts, counted after decompression as the bytes arrive.
    ///
    /// Past it the transfer is cancelled and the request fails with
    /// ``SimpleNetworkingError/responseTooLarge(limit:)``. Default: the client's
    /// ``SimpleNetworking/Configuration/maximumResponseBodySize`` (10 MiB).
    /// - Parameter bytes: The limit in bytes; negative values count as 0.
    /// - Returns: This request.
    @discardableResult
    public func maximumResponseBodySize(_ bytes: Int) -> Self {
        update { $0.parts.safety.maximumResponseBodySize = max(0, bytes) }
    }
}
