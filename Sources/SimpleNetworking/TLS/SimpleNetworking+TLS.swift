import Foundation

extension SimpleNetworking {
    /// Refuses an HTTPS hop whose TLS policy asks for a part the transport does not enforce (the client's
    /// ``tlsShortfall``), before anything is sent; plain `http` hops, and hosts no pin pattern matches when pins are
    /// the only part missing, pass.
    /// - Throws: ``SimpleNetworkingError/unsupportedByTransport(reason:)`` naming the transport and the parts.
    func refuseUnenforcedTLS(_ request: HTTPRequest) throws(SimpleNetworkingError) {
        guard let tlsShortfall, request.url.scheme?.lowercased() == "https" else { return }
        let missing = configuration.tls.requirements(forHost: request.url.host).intersection(tlsShortfall)
        guard !missing.isEmpty else { return }
        let hint = (transport as? URLSessionTransport).flatMap { $0.tlsRefusalHint(for: missing) }.map { "; " + $0 }
        throw .unsupportedByTransport(
            reason: "\(transportName) cannot enforce \(missing) of the client's TLS policy\(hint ?? ""); nothing was "
                + "sent (see the TLS article for what each transport enforces)")
    }

    /// The parts of `policy` that `transport` does not enforce, or `nil` when there are none.
    static func shortfall(of policy: TLSPolicy, on transport: any HTTPTransport) -> TLSRequirements? {
        let missing = policy.requirements(forHost: nil).subtracting(transport.tlsEnforcement)
        return missing.isEmpty ? nil : missing
    }

    /// The transport's name as an error names it: "URLSession on Linux", or the transport's type.
    var transportName: String {
        #if canImport(FoundationNetworking)
            if transport is URLSessionTransport { return "URLSession on Linux" }
        #endif
        return transport is URLSessionTransport ? "URLSession" : "\(type(of: transport))"
    }
}
