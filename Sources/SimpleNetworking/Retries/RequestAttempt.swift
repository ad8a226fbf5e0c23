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

    /// Creates a record.
    /// - Parameters:
    ///   - number: The attempt number, from 1.
    ///   - statusCode: The status received, if any.
    ///   - error: The failure, if no response arrived.
    ///   - delay: Seconds waited before the attempt.
    ///   - retriedBy: The interceptor that asked for the next attempt, if one did. Default: none.
    public init(
        number: Int, statusCode: Int?, error: SimpleNetworkingError?, delay: TimeInterval, retriedBy: String? = nil
    ) {
        self.number = number
        self.statusCode = statusCode
        self.error = error
        self.delay = delay
        self.retriedBy = retriedBy
    }
}

extension RequestAttempt: CustomStringConvertible {
    /// For example `#2 after 0.40 s: 503`.
    public var description: String {
        let outcome = statusCode.map(String.init) ?? error.map { "\($0)" } ?? "no outcome"
        let retried = retriedBy.map { ", retried by \($0)" } ?? ""
        return "#\(number) after \(String(format: "%.2f", delay)) s: \(outcome)\(retried)"
    }
}
