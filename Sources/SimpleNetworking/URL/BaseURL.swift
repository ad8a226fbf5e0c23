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

    init(_ url: URL) {
        self.url = url
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
