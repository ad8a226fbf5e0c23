/// Where a client keeps cookies: set with ``SimpleNetworking/Configuration/cookies``.
public enum CookieHandling: Sendable {
    /// A jar of the client's own, in memory, created with the client and using the configuration's clock. The
    /// default.
    case perClient
    /// No jar: `Set-Cookie` is ignored, and only a `Cookie` header you set yourself is sent.
    case disabled
    /// `jar`, shared with every client configured with it, so that a login on one is seen by the others.
    case shared(CookieJar)

    /// The jar a new client uses, or `nil` when cookies are off.
    func makeJar(clock: SimpleClock) -> CookieJar? {
        switch self {
        case .perClient: CookieJar(now: clock.now)
        case .disabled: nil
        case .shared(let jar): jar
        }
    }
}
