import Foundation

/// Receives every ``NetworkEvent`` of a client's requests, for logging and metrics: add one to
/// ``SimpleNetworking/Configuration/eventMonitors``.
///
/// Each execution of a request reports ``NetworkEvent/Kind/started`` first and
/// ``NetworkEvent/Kind/finished(statusCode:error:duration:)`` last, and between them each hop, each attempt's end
/// with its ``AttemptTimings``, each redirect, and each retry with its wait. The events of one execution arrive one at
/// a time, in order, on the thread where they happen; those of different requests may arrive concurrently. Like the
/// events themselves, a monitor never sees a header value or a body.
///
/// <doc:SecurityDefaults> shows a monitor that records durations.
public protocol EventMonitor: Sendable {
    /// Receives `event`, on any thread, as it happens: keep it fast, and never block or wait in it.
    /// - Parameter event: What happened.
    func receive(_ event: NetworkEvent)
}

extension SimpleNetworking {
    /// Hands `event` to the event handler, then to each monitor in order.
    func deliver(_ event: NetworkEvent) {
        configuration.eventHandler?(event)
        for monitor in configuration.eventMonitors { monitor.receive(event) }
    }
}
