/// The cancellation of an execution that runs in its caller's task, which ``SimpleRequest/cancel()`` must not cancel.
///
/// ``SimpleRequest/response(on:)`` runs the request in the task that awaits it, as `URLSession.data(for:)` does: no
/// task of its own, no thread switch to reach it and none to come back (the "Performance" article in the
/// documentation). Cancelling that task cancels the request, as usual. ``SimpleRequest/cancel()`` instead cancels the
/// execution's signal: whatever the execution awaits registers a handler here while it waits (the transport through
/// ``HTTPTransfer/withCancellationHandler(_:onCancel:isolation:)``, a retry's wait through a task of its own) and
/// the signal calls it, once. Copies share one signal.
@usableFromInline
package struct CancellationSignal: Sendable {
    private struct State {
        var isCancelled = false
        var handler: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// Creates a signal that is not cancelled.
    package init() {}

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// Cancels the signal: the handler registered now runs, here; one registered later runs as it is registered.
    package func cancel() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.isCancelled else { return nil }
            state.isCancelled = true
            defer { state.handler = nil }
            return state.handler
        }
        handler?()
    }

    /// Runs `operation` with `handler` registered: it runs if the signal is cancelled meanwhile, or at once when it
    /// already was. A registration inside another calls both handlers.
    func withCancellationHandler<Value>(
        _ operation: () async throws -> Value, onCancel handler: @escaping @Sendable () -> Void
    ) async rethrows -> Value {
        let registration = register(handler)
        defer { unregister(registration) }
        return try await operation()
    }

    /// Registers `handler`, or runs it at once when the signal is already cancelled.
    /// - Returns: What ``unregister(_:)`` puts back.
    @usableFromInline
    func register(_ handler: @escaping @Sendable () -> Void) -> Registration {
        let (cancelled, previous) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            let previous = state.handler
            if !state.isCancelled {
                if let outer = previous {
                    state.handler = { @Sendable in
                        handler()
                        outer()
                    }
                } else {
                    state.handler = handler
                }
            }
            return (state.isCancelled, previous)
        }
        if cancelled { handler() }
        return Registration(previous: previous)
    }

    /// Ends a registration: the handler registered before it, if any, is the one a cancellation calls again.
    @usableFromInline
    func unregister(_ registration: Registration) {
        state.withLock { $0.handler = registration.previous }
    }

    /// What a registration replaced.
    @usableFromInline
    struct Registration: Sendable {
        let previous: (@Sendable () -> Void)?
    }
}
