import Foundation

/// When the steps of one attempt happened, by the client's clock (``SimpleNetworking/Configuration/clock``), and the
/// durations between them: carried by ``NetworkEvent/Kind/attemptFinished(attempt:statusCode:timings:)``.
///
/// The response head and body end are those of the attempt's last hop: after a redirect, the response the attempt
/// ended with, so ``timeToResponseHead`` includes the redirect hops before it. The dates are read in the order
/// `start`, `responseHead`, `bodyEnd`, `end`, so a clock that never goes back gives durations of zero or more (the
/// system clock is the wall clock, which may be set back).
public struct AttemptTimings: Sendable, Hashable, CustomStringConvertible {
    /// When the attempt's request, built, went to the transport.
    public let start: Date
    /// When the status and headers of the last hop's response arrived; `nil` when none did (the hop failed first).
    public let responseHead: Date?
    /// When the last hop's response body ended, the whole body received; `nil` when it did not (no response, or a
    /// failure during the body).
    public let bodyEnd: Date?
    /// When the attempt ended: its body's end, or its failure.
    public let end: Date

    /// Creates timings, for tests of an ``EventMonitor``.
    /// - Parameters:
    ///   - start: When the attempt's request went to the transport.
    ///   - responseHead: When the last hop's response head arrived, or `nil`. Default: `nil`.
    ///   - bodyEnd: When the last hop's body ended, or `nil`. Default: `nil`.
    ///   - end: When the attempt ended.
    public init(start: Date, responseHead: Date? = nil, bodyEnd: Date? = nil, end: Date) {
        self.start = start
        self.responseHead = responseHead
        self.bodyEnd = bodyEnd
        self.end = end
    }

    /// Seconds from the start to the end of the attempt.
    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// Seconds from the start to the response head (time to first byte, redirect hops included); `nil` without a
    /// head.
    public var timeToResponseHead: TimeInterval? { responseHead?.timeIntervalSince(start) }

    /// Seconds from the response head to the end of its body; `nil` unless both arrived.
    public var bodyDuration: TimeInterval? {
        guard let responseHead, let bodyEnd else { return nil }
        return bodyEnd.timeIntervalSince(responseHead)
    }

    /// For example `212.4 ms (head after 200.1 ms, body 12.3 ms)`, or `30 s (no response)`.
    public var description: String {
        let total = DurationText.describe(duration)
        guard let timeToResponseHead else { return "\(total) (no response)" }
        let head = "head after \(DurationText.describe(timeToResponseHead))"
        guard let bodyDuration else { return "\(total) (\(head), body incomplete)" }
        return "\(total) (\(head), body \(DurationText.describe(bodyDuration)))"
    }
}
