import Foundation

/// Where a client's base URL comes from: a fixed value checked once, or a provider asked each time an attempt is
/// built (<doc:GettingStarted>).
struct BaseURLSource: Sendable {
    private let provider: (@Sendable () -> URL)?
    /// The fixed base URL, or the provider's last value, with its checks.
    private let lastChecked: Locked<BaseURL>

    /// A base URL that never changes, checked now.
    init(fixed url: URL) {
        provider = nil
        lastChecked = Locked(BaseURL(url, caching: true))
    }

    /// A base URL asked of `provider` each time; its first value is checked now.
    init(provider: @escaping @Sendable () -> URL) {
        self.provider = provider
        lastChecked = Locked(BaseURL(provider(), caching: true))
    }

    /// The base URL as it is now: the provider's value, checked only when it differs from the last one.
    var current: BaseURL {
        guard let provider else { return lastChecked.current }
        let url = provider()  // asked outside the lock: the provider may take locks of its own
        let last = lastChecked.current
        if last.url == url { return last }
        let checked = BaseURL(url, caching: true)
        lastChecked.set(checked)
        return checked
    }

    /// The URL requests are appended to now.
    var url: URL {
        provider?() ?? lastChecked.current.url
    }
}
