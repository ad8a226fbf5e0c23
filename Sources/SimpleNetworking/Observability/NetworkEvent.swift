import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that happened to a request, for logging and metrics: set
/// ``SimpleNetworking/Configuration/eventHandler`` or add an ``EventMonitor`` to
/// ``SimpleNetworking/Configuration/eventMonitors`` to receive them.
///
/// Events never hold header values or bodies, and their URLs are redacted: user info is removed and the values of
/// ``SimpleNetworking/Configuration/sensitiveQueryParameters`` are replaced with `<redacted>`. Their dates and
/// durations come from the client's ``SimpleNetworking/Configuration/clock``. Bridge them to swift-log or `os.Logger`
/// without the library depending on either:
///
/// ```swift
/// configuration.eventHandler = { event in logger.debug("\(event)") }
/// ```
public struct NetworkEvent: Sendable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable {
        /// An execution of the request started (``SimpleRequest/response(on:)``, ``SimpleRequest/execute(on:)``, a
        /// late ``SimpleRequest/retry()``): the first event of each execution, dated when it started. Its URL is the
        /// request's as built when it started, or `(no URL)` when it cannot be built.
        case started
        /// A request is about to be sent: the first one of an attempt, or the next hop of a redirect.
        case willSend
        /// A response arrived, before any redirect is followed.
        case didReceiveResponse(statusCode: Int)
        /// Attempt number `attempt` (from 1) ended, with the status of the response it ended with, or `nil` when it
        /// failed (a ``failed(_:)`` event told why), and when each of its steps happened. It comes before the
        /// handlers run and the execution decides to retry or finish.
        case attemptFinished(attempt: Int, statusCode: Int?, timings: AttemptTimings)
        /// The request will run again: `attempt` is the number of the next attempt, after `delay` seconds. Every
        /// retry is announced, the retry policy's and those a handler asks for (``SimpleRequest/retry()``), once it
        /// is within the retry limit.
        case retryScheduled(attempt: Int, delay: TimeInterval)
        /// The wait before attempt `attempt` ended after `duration` seconds, and the attempt follows: the
        /// ``retryScheduled(attempt:delay:)`` delay, then any work the retry awaited
        /// (``SimpleRequest/retry(after:)``, re-authentication). Only retries with something to wait for report it;
        /// a wait that is cancelled or passes the deadline ends the execution instead.
        case retryWaitFinished(attempt: Int, duration: TimeInterval)
        /// The client's HTTP cache answered the attempt (``ResponseSource/cache``), or the server confirmed its
        /// stored response (``ResponseSource/revalidated``), with `statusCode` (<doc:HTTPCaching>). It comes before
        /// ``attemptFinished(attempt:statusCode:timings:)``; an attempt the server answered has none. A stale response
        /// revalidated in the background (`stale-while-revalidate`) reports the merged `304` this way too, with the
        /// same request id, after that request's ``finished(statusCode:error:duration:)``.
        case cacheAnswered(source: ResponseSource, statusCode: Int)
        /// The client's HTTP cache stored the response the server sent, with `statusCode`, for later requests: a new
        /// response, or one that replaces what was stored (<doc:HTTPCaching>). A `304` merged into a stored response
        /// reports ``cacheAnswered(source:statusCode:)`` instead. It comes before
        /// ``attemptFinished(attempt:statusCode:timings:)``; a stale response revalidated in the background whose
        /// server sent a full response reports it after that request's ``finished(statusCode:error:duration:)``,
        /// with the same request id. A response the cache may not store, or has no room for, reports nothing.
        case cacheStored(statusCode: Int)
        /// A redirect was followed; both URLs are redacted.
        case redirectFollowed(from: String, to: String, statusCode: Int)
        /// A redirect was not followed because of the redirect policy, a loop or the hop limit.
        case redirectRefused(statusCode: Int, reason: String)
        /// The attempt failed with `error`. The errors reported here carry no response, and their descriptions
        /// never hold a secret.
        case failed(SimpleNetworkingError)
        /// The execution ended, `duration` seconds after ``started``: the last event of each execution, once its
        /// handlers have run. `statusCode` is the status of the response it ended with, if any; `error` is what
        /// the caller gets when it failed (an unacceptable status included), with any response it carries reduced to
        /// its status and redacted URL: no header, no body (values of the app's own types it holds, such as the
        /// decoded body of ``SimpleNetworkingError/errorBody(_:response:)``, stay). Decoding is part of the execution
        /// (``SimpleRequest/decode(_:decoder:on:)`` and the other value steps): a body that does not decode finishes
        /// with its status and ``SimpleNetworkingError/decodingFailed(type:reason:response:)``.
        case finished(statusCode: Int?, error: SimpleNetworkingError?, duration: TimeInterval)
    }

    /// What happened.
    public let kind: Kind
    /// The same for every event of one ``SimpleRequest``, across its attempts and redirects.
    public let requestID: UUID
    /// The method of the request the event is about.
    public let method: HTTPMethod
    /// The URL of the request the event is about, redacted.
    public let url: String
    /// When it happened, by the client's ``SimpleNetworking/Configuration/clock``.
    public let date: Date

    init(_ kind: Kind, requestID: UUID, method: HTTPMethod, url: String, date: Date) {
        self.kind = kind
        self.requestID = requestID
        self.method = method
        self.url = url
        self.date = date
    }

    /// One line such as `[1A2B3C4D] GET https://api.example.com/users?token=<redacted>: response 200`, durations
    /// in milliseconds below a second and in seconds from one on (`finished 200 in 212.4 ms`, `retry as attempt 2 in
    /// 1.5 s`). The eight characters in brackets begin ``requestID``: the same on every line of one request, and
    /// different from one request to the next.
    public var description: String {
        let id = requestID.uuidString.prefix(8)
        return "[\(id)] \(method) \(url): " + kind.summary
    }

}

extension NetworkEvent.Kind {
    fileprivate var summary: String {
        switch self {
        case .started: return "started"
        case .willSend: return "sending"
        case .didReceiveResponse(let status): return "response \(status)"
        case .attemptFinished(let attempt, let status, let timings):
            return "attempt \(attempt) finished, \(status.map(String.init) ?? "no response") in \(timings)"
        case .retryScheduled(let attempt, let delay):
            return "retry as attempt \(attempt) in \(DurationText.describe(delay))"
        case .retryWaitFinished(let attempt, let duration):
            return "waited \(DurationText.describe(duration)) before attempt \(attempt)"
        case .cacheAnswered(.revalidated, let status): return "\(status) from the cache, revalidated (304)"
        case .cacheAnswered(_, let status): return "\(status) from the cache"
        case .cacheStored(let status): return "\(status) stored in the cache"
        case .redirectFollowed(_, let to, let status): return "redirect \(status) followed to \(to)"
        case .redirectRefused(let status, let reason): return "redirect \(status) refused: \(reason)"
        case .failed(let error): return "failed: \(error)"
        case .finished(let status, let error, let duration):
            let time = DurationText.describe(duration)
            if let error { return "finished in \(time) with an error: \(error)" }
            return "finished \(status.map(String.init) ?? "without a response") in \(time)"
        }
    }
}

extension SimpleNetworking {
    /// Reports `kind` for `request` to the event handler and monitors, with the URL redacted, dated by the client's
    /// clock; nothing is made when nothing listens.
    func emit(_ kind: NetworkEvent.Kind, for request: HTTPRequest, requestID: UUID) {
        guard isObserved else { return }
        deliver(
            NetworkEvent(
                kind, requestID: requestID, method: request.method, url: sensitiveData.redact(request.url),
                date: configuration.clock.now()))
    }
}
