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

    /// Creates a record.
    /// - Parameters:
    ///   - number: The attempt number, from 1.
    ///   - statusCode: The status received, if any.
    ///   - error: The failure, if no response arrived.
    ///   - delay: Seconds waited before the attempt.
    public init(number: Int, statusCode: Int?, error: SimpleNetworkingError?, delay: TimeInterval) {
        self.number = number
        self.statusCode = statusCode
        self.error = error
        self.delay = delay
    }
}

extension RequestAttempt: CustomStringConvertible {
    /// For example `#2 after 0.40 s: 503`.
    public var description: String {
        let outcome = statusCode.map(String.init) ?? error.map { "\($0)" } ?? "no outcome"
        return "#\(number) after \(String(format: "%.2f", delay)) s: \(outcome)"
    }
}
