import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that happened to a request, for logging and metrics: set
/// ``SimpleNetworking/Configuration/eventHandler`` to receive them.
///
/// Events never hold header values or bodies, and their URLs are redacted: user info is removed and the values of
/// ``SimpleNetworking/Configuration/sensitiveQueryParameters`` are replaced with `<redacted>`. Bridge them to
/// swift-log or `os.Logger` without the library depending on either:
///
/// ```swift
/// configuration.eventHandler = { event in logger.debug("\(event)") }
/// ```
public struct NetworkEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable {
        /// A request is about to be sent: the first one of an attempt, or the next hop of a redirect.
        case willSend
        /// A response arrived, before any redirect is followed.
        case didReceiveResponse(statusCode: Int)
        /// The request will run again: `attempt` is the number of the next attempt, after `delay` seconds.
        case retryScheduled(attempt: Int, delay: TimeInterval)
        /// A redirect was followed; both URLs are redacted.
        case redirectFollowed(from: String, to: String, statusCode: Int)
        /// A redirect was not followed because of the redirect policy, a loop or the hop limit.
        case redirectRefused(statusCode: Int, reason: String)
        /// The attempt failed with `error`. The errors reported here carry no response, and their descriptions
        /// never hold a secret.
        case failed(SimpleNetworkingError)
    }

    /// What happened.
    public let kind: Kind
    /// The same for every event of one ``SimpleRequest``, across its attempts and redirects.
    public let requestID: UUID
    /// The method of the request the event is about.
    public let method: HTTPMethod
    /// The URL of the request the event is about, redacted.
    public let url: String
    /// When it happened.
    public let date: Date

    init(_ kind: Kind, requestID: UUID, method: HTTPMethod, url: String, date: Date = Date()) {
        self.kind = kind
        self.requestID = requestID
        self.method = method
        self.url = url
        self.date = date
    }

    /// One line such as `[1A2B3C4D] GET https://api.example.com/users?token=<redacted>: response 200`.
    public var description: String {
        let id = requestID.uuidString.prefix(8)
        return "[\(id)] \(method) \(url): " + kind.summary
    }
}

extension NetworkEvent.Kind {
    fileprivate var summary: String {
        switch self {
        case .willSend: return "sending"
        case .didReceiveResponse(let status): return "response \(status)"
        case .retryScheduled(let attempt, let delay): return "retry as attempt \(attempt) in \(delay) s"
        case .redirectFollowed(_, let to, let status): return "redirect \(status) followed to \(to)"
        case .redirectRefused(let status, let reason): return "redirect \(status) refused: \(reason)"
        case .failed(let error): return "failed: \(error)"
        }
    }
}

extension SimpleNetworking {
    /// Reports `kind` for `request` to the configured event handler, with the URL redacted.
    func emit(_ kind: NetworkEvent.Kind, for request: HTTPRequest, requestID: UUID) {
        guard let handler = configuration.eventHandler else { return }
        handler(
            NetworkEvent(kind, requestID: requestID, method: request.method, url: sensitiveData.redact(request.url)))
    }
}
