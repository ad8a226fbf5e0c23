import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// DOC-SAMPLE: SecurityDefaults/metrics-monitor
/// Records how long requests take, and how long their attempts wait for a response.
final class DurationMetrics: EventMonitor, @unchecked Sendable {
    // @unchecked Sendable: the lock guards both lists.
    private let lock = NSLock()
    private var requestDurations: [TimeInterval] = []
    private var timesToResponse: [TimeInterval] = []

    func receive(_ event: NetworkEvent) {
        lock.lock()
        defer { lock.unlock() }
        switch event.kind {
        case .finished(_, _, let duration):
            requestDurations.append(duration)
        case .attemptFinished(_, _, let timings):
            if let wait = timings.timeToResponseHead { timesToResponse.append(wait) }
        default:
            break
        }
    }

    /// The slowest request so far and the slowest response head, in seconds.
    var slowest: (request: TimeInterval?, responseHead: TimeInterval?) {
        lock.lock()
        defer { lock.unlock() }
        return (requestDurations.max(), timesToResponse.max())
    }
}
// DOC-SAMPLE-END

// `print` stands in for Swift's own, so that the test sees the lines.
func metricsSample(baseURL: URL, print: @escaping @Sendable (String) -> Void) async throws -> DurationMetrics {
    // DOC-SAMPLE: SecurityDefaults/metrics-setup
    let metrics = DurationMetrics()
    var configuration = SimpleNetworking.Configuration()
    configuration.eventMonitors = [metrics]
    // One line per event, such as "[1A2B3C4D] GET https://api.example.com/users: finished 200 in 212.4 ms".
    configuration.eventHandler = { event in print("\(event)") }
    let api = SimpleNetworking(baseURL: baseURL, configuration: configuration)

    _ = try await api.get("/users").response()
    print("\(metrics.slowest)")
    // DOC-SAMPLE-END
    api.close()
    return metrics
}

@Suite("The Security defaults article's sample runs")
struct SecurityDefaultsSampleTests {
    @Test("The metrics monitor records the request's duration, and the handler logs its finish")
    func metricsSampleRuns() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .json(#"[{"id": 1}]"#) }
        let log = EventLog()

        let metrics = try await metricsSample(baseURL: server.baseURL, print: { log.append($0) })

        let slowest = metrics.slowest
        #expect(slowest.request.map { $0 >= 0 } == true)
        #expect(slowest.responseHead.map { $0 >= 0 && $0 <= slowest.request ?? 0 } == true)
        // The event's line, then the slowest durations the sample prints.
        #expect(log.all.dropLast().last?.contains("/users: finished 200 in ") == true, "\(log.all)")
        #expect(log.all.last?.hasPrefix("(request: Optional(") == true, "\(log.all)")
    }
}
