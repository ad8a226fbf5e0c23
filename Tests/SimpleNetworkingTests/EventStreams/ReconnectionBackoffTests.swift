import Foundation
import SimpleNetworking
import Testing

@Suite("The reconnection backoff of event streams")
struct ReconnectionBackoffTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var shortConnections: Int
        var retryTime: TimeInterval
        var random: Double
        var wait: TimeInterval
        var testDescription: String { "\(shortConnections) short, retry \(retryTime) s, random \(random): \(wait) s" }
    }

    static let defaults = ReconnectionBackoff()

    @Test(
        "The defaults: the retry time up to one short connection, then half to all of the grown bound, capped",
        arguments: [
            Case(shortConnections: 0, retryTime: 3, random: 0.9, wait: 3),
            Case(shortConnections: 1, retryTime: 3, random: 0.9, wait: 3),
            Case(shortConnections: 1, retryTime: 0, random: 0.9, wait: 0),
            // retry: 0 grows from the minimum, 1 s: 2 s, 4 s, 8 s ... with jitter between half and all of it.
            Case(shortConnections: 2, retryTime: 0, random: 0, wait: 1),
            Case(shortConnections: 2, retryTime: 0, random: 1, wait: 2),
            Case(shortConnections: 3, retryTime: 0, random: 0.5, wait: 3),
            Case(shortConnections: 7, retryTime: 0, random: 0, wait: 30),
            Case(shortConnections: 64, retryTime: 0, random: 1, wait: 60),
            // A retry time above the minimum is the base, and the wait is never below it.
            Case(shortConnections: 2, retryTime: 3, random: 0, wait: 3),
            Case(shortConnections: 2, retryTime: 3, random: 1, wait: 6),
            Case(shortConnections: 3, retryTime: 3, random: 0, wait: 6),
            // A server's retry above the cap is honoured as it is.
            Case(shortConnections: 5, retryTime: 120, random: 1, wait: 120),
        ])
    func defaults(_ row: Case) {
        #expect(
            Self.defaults.wait(
                afterShortConnections: row.shortConnections, retryTime: row.retryTime, random: row.random)
                == row.wait)
    }

    @Test("Documented defaults: 1 s minimum, doubling, 60 s cap, healthy after 5 s; options keep 8 MiB")
    func documentedDefaults() {
        #expect(Self.defaults.minimum == 1)
        #expect(Self.defaults.multiplier == 2)
        #expect(Self.defaults.cap == 60)
        #expect(Self.defaults.healthyConnectionTime == 5)
        let options = EventStreamOptions()
        #expect(options.bufferSize == 8 * 1024 * 1024)
        #expect(options.backoff == ReconnectionBackoff())
        #expect(SimpleNetworking.Configuration().maximumConnectionsPerHost == 6)
    }

    @Test("A multiplier of 1 and no minimum wait the retry time alone, as a browser's EventSource does")
    func browserLike() {
        let backoff = ReconnectionBackoff(minimum: 0, multiplier: 1)
        for shortConnections in 0...10 {
            #expect(backoff.wait(afterShortConnections: shortConnections, retryTime: 2, random: 0) == 2)
        }
    }

    @Test("Out-of-range settings are clamped: negative and NaN values, a multiplier below 1")
    func clamped() {
        let backoff = ReconnectionBackoff(minimum: -1, multiplier: 0.5, cap: .nan, healthyConnectionTime: -3)
        #expect(backoff.minimum == 0)
        #expect(backoff.multiplier == 1)
        #expect(backoff.cap == 0)
        #expect(backoff.healthyConnectionTime == 0)
        #expect(backoff.wait(afterShortConnections: 3, retryTime: .nan, random: 0.5) == 0)
    }

    @Test("Every existing EventStreamOptions initializer form still compiles")
    func initializerForms() {
        _ = EventStreamOptions()
        _ = EventStreamOptions(reconnects: true)
        _ = EventStreamOptions(reconnects: true, idleTimeout: 60)
        _ = EventStreamOptions(reconnectionTime: 5, idleTimeout: 120)
        _ = EventStreamOptions(maximumEventSize: 64)
        _ = EventStreamOptions(reconnects: false, reconnectionTime: 1, idleTimeout: nil, maximumEventSize: 10)
        let options = EventStreamOptions(bufferSize: 1024, backoff: ReconnectionBackoff(cap: 10))
        #expect(options.bufferSize == 1024)
        #expect(options.backoff.cap == 10)
    }
}
