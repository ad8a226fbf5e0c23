import Foundation

/// Decides where the URLSession transport creates and resumes a task: on the caller's thread when none of the
/// library's transfers is under way, otherwise on ``SessionDelegate/starts``.
///
/// On Linux creating and resuming a task wait for FoundationNetworking's work queue, which every session of the
/// process shares and which libcurl can keep busy for seconds while it works on a response ("URLSession on Linux" in
/// the documentation). A thread of Swift's cooperative pool must not wait there, so a start normally goes to a serial
/// queue of the library's. That switch of threads cost sequential requests about 6% of their requests per second
/// (<doc:Performance>), and it buys nothing when the library has no transfer in flight and no start under way:
/// the work queue then has nothing of the library's to do. Such a start runs on the caller's thread, through
/// `starts.sync`, so that it stays in order with every other start and with the invalidation of a closed session.
///
/// A transfer counts from its task's creation until URLSession completes that task (`didCompleteWithError`, or the
/// completion handler on a session the caller made), not until its attempt ends: a task cancelled after a timeout
/// keeps libcurl busy until its response stops, and starts go to the queue meanwhile. A task URLSession never
/// completed would keep every later start on the queue, as before this existed, never on the caller's thread.
package final class TaskStarts: Sendable {
    /// The process's: the work queue it stands for is the process's too.
    package static let shared = TaskStarts()

    private struct State: Sendable {
        /// Starts decided and not yet ended, on either thread.
        var starting = 0
        /// The transfers URLSession has not completed, by the identity of their task (or, on a session the caller
        /// made, of their attempt).
        var transfers = Set<ObjectIdentifier>()
    }

    private let state = Locked(State())

    /// Creates a set of starts of its own; the transport uses ``shared``, tests their own.
    package init() {}

    /// Counts a start as under way until ``end()``.
    /// - Returns: Whether it may run on the caller's thread: no transfer is in flight and no other start under way.
    package func begin() -> Bool {
        state.withLock { state in
            defer { state.starting += 1 }
            return state.starting == 0 && state.transfers.isEmpty
        }
    }

    /// Ends a start counted by ``begin()``.
    /// - Parameter transfer: The key of the transfer the start made, counted as in flight until ``completed(_:)`` with
    ///   the same key: call this before its task is resumed. `nil` when the start made no task.
    package func end(startedTransfer transfer: AnyObject? = nil) {
        state.withLock { state in
            state.starting -= 1
            if let transfer { state.transfers.insert(ObjectIdentifier(transfer)) }
        }
    }

    /// Ends a transfer counted by ``end(startedTransfer:)``; calling it again, or for a key never counted, does
    /// nothing.
    package func completed(_ key: AnyObject) {
        state.withLock { _ = $0.transfers.remove(ObjectIdentifier(key)) }
    }

    /// The transfers in flight and the starts under way.
    package var inFlight: (transfers: Int, starting: Int) {
        state.withLock { ($0.transfers.count, $0.starting) }
    }
}
