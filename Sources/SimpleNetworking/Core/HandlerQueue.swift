import Dispatch

/// Where a client runs request handlers.
///
/// All handlers of one response run one after another, in order, in a single job on this queue. The default,
/// ``background``, never needs the main thread, so a command-line program that awaits or blocks on a request cannot
/// deadlock. Apps that update UI from handlers choose ``mainActor``.
public struct HandlerQueue: Sendable {
    let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// A queue that runs jobs with `schedule`.
    /// - Parameter schedule: Runs the job it is given, now or later, on any thread.
    public init(schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.schedule = schedule
    }

    /// Runs handlers on a Dispatch queue.
    /// - Parameter queue: The queue; a serial queue also serializes handlers across requests.
    /// - Returns: The handler queue.
    public static func dispatch(_ queue: DispatchQueue) -> HandlerQueue {
        HandlerQueue { job in queue.async(execute: job) }
    }

    /// Runs handlers on a concurrent background queue shared by the library. The default.
    public static let background: HandlerQueue = .dispatch(
        DispatchQueue(label: "SimpleNetworking.handlers", qos: .userInitiated, attributes: .concurrent)
    )

    /// Runs handlers on the main actor. Handlers can then use `MainActor.assumeIsolated` to touch UI state.
    ///
    /// The main actor must be running: in an app it always is; in a command-line tool, only while `main` awaits.
    public static let mainActor = HandlerQueue { job in
        Task { @MainActor in job() }
    }
}
