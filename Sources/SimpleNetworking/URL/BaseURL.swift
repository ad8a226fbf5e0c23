import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The base URL, checked once per value, as the text every request path is appended to.
struct BaseURL: Sendable {
    /// The URL as given, to tell whether a provider's next value is the one already checked.
    let url: URL
    /// `scheme://authority/path` without a trailing slash, or the reason the base URL is unusable.
    let prefix: Result<String, SimpleNetworkingError>
    let origin: Origin?
    /// The URLs already built from this base URL, for a client's own base URL; `nil` for one built once (an
    /// endpoint's own base URL).
    let built: BuiltURLs?

    /// Checks `url` as a base URL.
    /// - Parameter caching: Keep the URLs built from it for the next request with the same path and query.
    init(_ url: URL, caching: Bool = false) {
        self.url = url
        built = caching ? BuiltURLs() : nil
        origin = Origin(url)
        guard let origin else {
            prefix = .failure(.invalidURL(reason: "the base URL must be an http or https URL with a host"))
            return
        }
        guard url.query == nil, url.fragment == nil else {
            prefix = .failure(.invalidURL(reason: "the base URL must not have a query or fragment"))
            return
        }
        // User info in the base URL is the client's own configuration: the transport sends it as Basic credentials
        // to the base URL's origin only, since redirect targets lose theirs (<doc:SecurityDefaults>).
        guard var text = url.lowercasingScheme(origin.scheme)?.absoluteString else {
            prefix = .failure(.invalidURL(reason: "the base URL could not be rebuilt with a lower-case scheme"))
            return
        }
        while text.hasSuffix("/") { text.removeLast() }
        prefix = .success(text)
    }
}
