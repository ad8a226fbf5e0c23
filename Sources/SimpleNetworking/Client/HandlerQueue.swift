import Dispatch

/// Where a client runs request handlers.
///
/// All handlers of one response run one after another, in order, in a single job on this queue. The default,
/// ``background``, never needs the main thread, so a command-line program that awaits or blocks on a request cannot
/// deadlock. Apps that update UI from handlers choose ``mainActor``.
public struct HandlerQueue: Sendable {
    let schedule: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// The request's handlers run in the execution's task, where the response arrived, instead of in a job
    /// scheduled elsewhere: no thread switch between the response and its handlers (``background``).
    let runsHandlersInExecution: Bool

    /// A queue that runs jobs with `schedule`.
    /// - Parameter schedule: Runs the job it is given, now or later, on any thread.
    public init(schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.schedule = schedule
        self.runsHandlersInExecution = false
    }

    private init(
        runsHandlersInExecution: Bool, schedule: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) {
        self.schedule = schedule
        self.runsHandlersInExecution = runsHandlersInExecution
    }

    /// Runs handlers on a Dispatch queue.
    /// - Parameter queue: The queue; a serial queue also serializes handlers across requests.
    /// - Returns: The handler queue.
    public static func dispatch(_ queue: DispatchQueue) -> HandlerQueue {
        HandlerQueue { job in queue.async(execute: job) }
    }

    /// Runs handlers off the main thread. The default.
    ///
    /// A request's status, success, error and completion handlers run in the request's task, on Swift's
    /// cooperative thread pool, right where its response arrived: no thread switch, so the handler API costs what
    /// `response()` costs. Progress handlers, which a transport reports from its own threads, run on a concurrent
    /// Dispatch queue. Like any code on the cooperative pool, a handler should not block for long (waiting on a
    /// semaphore for another request, say): give such a client ``dispatch(_:)`` with a queue of its own.
    public static let background: HandlerQueue = {
        let queue = DispatchQueue(label: "SimpleNetworking.handlers", qos: .userInitiated, attributes: .concurrent)
        return HandlerQueue(runsHandlersInExecution: true) { job in queue.async(execute: job) }
    }()

    /// Runs handlers on the main actor. Handlers can then use `MainActor.assumeIsolated` to touch UI state; the
    /// `onMainActor` forms of a request's handlers (``SimpleRequest/onMainActor(success:)``) are main-actor closures
    /// of their own, and move that request's handlers to the main actor on any queue.
    ///
    /// The main actor must be running: in an app it always is; in a command-line tool, only while `main` awaits.
    public static let mainActor = HandlerQueue { job in
        Task { @MainActor in job() }
    }
}

extension HandlerQueue {
    /// Runs `job` on this queue and returns its result once it has run; on ``background``, right here in the
    /// execution's task.
    func run<Value: Sendable>(_ job: @escaping @Sendable () -> Value) async -> Value {
        if runsHandlersInExecution { return job() }
        return await withCheckedContinuation { continuation in
            schedule { continuation.resume(returning: job()) }
        }
    }
}
