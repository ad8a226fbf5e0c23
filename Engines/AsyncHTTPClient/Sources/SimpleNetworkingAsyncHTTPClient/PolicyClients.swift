import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOSSL
import SimpleNetworking

/// The clients a transport makes for TLS policies other than the system's defaults: one set per policy, made on the
/// policy's first HTTPS request with its `TLSConfiguration` as theirs, for the first ``capacity`` policies.
///
/// A request that carried the configuration itself would cost AsyncHTTPClient a hash and a comparison of it for each
/// request, to find its pool (the certificates in it are serialized each time): about a tenth of the engine's
/// instructions per HTTPS request. Through clients of its own, a policy's requests cost what the system's do. Requests
/// under further policies, and over a client of the user's, still carry their configuration.
final class PolicyClients: Sendable {
    private struct State {
        var sets: [(policy: TLSPolicy, clients: ClientLoops)] = []
        var isClosed = false
    }

    /// How many policies get clients of their own.
    static let capacity = 4
    private let state = NIOLockedValueBox(State())
    private let make: @Sendable (TLSConfiguration) -> ClientLoops

    /// Sets made by `make`, from a policy's configuration.
    init(make: @escaping @Sendable (TLSConfiguration) -> ClientLoops) {
        self.make = make
    }

    /// The clients of `policy`, whose configuration is `configuration`, made now if they are not yet; `nil` when
    /// ``capacity`` other policies have theirs, or after ``close()``.
    func clients(for policy: TLSPolicy, configuration: TLSConfiguration) -> ClientLoops? {
        state.withLockedValue { state in
            if state.isClosed { return nil }
            if let found = state.sets.first(where: { $0.policy == policy }) { return found.clients }
            guard state.sets.count < Self.capacity else { return nil }
            let clients = make(configuration)
            state.sets.append((policy, clients))
            return clients
        }
    }

    /// Every client made, for shutting down; none is made after.
    func close() -> [HTTPClient] {
        state.withLockedValue { state in
            state.isClosed = true
            return state.sets.flatMap { $0.clients.clients }
        }
    }
}
