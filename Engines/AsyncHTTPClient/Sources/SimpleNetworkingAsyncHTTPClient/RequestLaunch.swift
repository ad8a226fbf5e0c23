import AsyncHTTPClient
import NIOConcurrencyHelpers
import SimpleNetworking

/// The AsyncHTTPClient task of one request, which ``AsyncHTTPClientTransport`` starts on the request's event loop
/// while the caller's cancellation may come from any thread: a cancellation before the start keeps the request from
/// being sent, one after it cancels the task.
final class RequestLaunch: Sendable {
    private struct State {
        var task: HTTPClient.Task<SimpleResponse>?
        var isCancelled = false
    }

    private let state = NIOLockedValueBox(State())

    /// Whether the caller cancelled: the request must not start.
    var isCancelled: Bool { state.withLockedValue { $0.isCancelled } }

    /// Records the started `task`, and cancels it when the caller cancelled meanwhile.
    func started(_ task: HTTPClient.Task<SimpleResponse>) {
        let cancelledMeanwhile = state.withLockedValue { state in
            state.task = task
            return state.isCancelled
        }
        if cancelledMeanwhile { task.cancel() }
    }

    /// The caller cancelled: cancels the task if it started, or keeps it from starting.
    func cancel() {
        let task = state.withLockedValue { state in
            state.isCancelled = true
            return state.task
        }
        task?.cancel()
    }
}
