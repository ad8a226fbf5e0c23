import Foundation

/// One attempt of an execution, for the history that responses and errors carry.
public struct RequestAttempt: Sendable {
    /// The attempt number, from 1.
    public let number: Int
    /// The status received, when a response arrived.
    public let statusCode: Int?
    /// The failure, when no response arrived.
    public let error: SimpleNetworkingError?
    /// Seconds waited before this attempt was sent (backoff or `Retry-After`); 0 for the first.
    public let delay: TimeInterval
    /// The interceptor that asked for the attempt after this one (``RequestInterceptor/retry(after:context:)``), by
    /// its type's name; `nil` when none did.
    public let retriedBy: String?
    /// The HTTP version the response came over (``SimpleResponse/httpVersion``); `nil` when no response arrived or
    /// the transport does not say.
    public let httpVersion: HTTPProtocolVersion?
    /// Where the attempt's response came from (``SimpleResponse/source``); `nil` when no response arrived.
    public let source: ResponseSource?

    /// Creates a record.
    /// - Parameters:
    ///   - number: The attempt number, from 1.
    ///   - statusCode: The status received, if any.
    ///   - error: The failure, if no response arrived.
    ///   - delay: Seconds waited before the attempt.
    ///   - retriedBy: The interceptor that asked for the next attempt, if one did. Default: none.
    ///   - httpVersion: The HTTP version the response came over, if known. Default: `nil`.
    ///   - source: Where the response came from, if one arrived. Default: `nil`.
    public init(
        number: Int, statusCode: Int?, error: SimpleNetworkingError?, delay: TimeInterval, retriedBy: String? = nil,
        httpVersion: HTTPProtocolVersion? = nil, source: ResponseSource? = nil
    ) {
        self.number = number
        self.statusCode = statusCode
        self.error = error
        self.delay = delay
        self.retriedBy = retriedBy
        self.httpVersion = httpVersion
        self.source = source
    }
}

extension RequestAttempt: CustomStringConvertible {
    /// For example `#2 after 400 ms: 503`, `#3 after 1.5 s: 503`, `#1 after 0 ms: 200 over HTTP/2` when the
    /// version is known, or `#1 after 0 ms: 200 from the cache` (or `revalidated`): the delay below a second in
    /// milliseconds, from a second on in seconds.
    public var description: String {
        let outcome = statusCode.map(String.init) ?? error.map { "\($0)" } ?? "no outcome"
        var version = httpVersion.map { " over \($0)" } ?? ""
        switch source {
        case .cache: version += " from the cache"
        case .revalidated: version += " revalidated"
        case .network, nil: break
        }
        let retried = retriedBy.map { ", retried by \($0)" } ?? ""
        return "#\(number) after \(DurationText.describe(delay)): \(outcome)\(version)\(retried)"
    }
}
