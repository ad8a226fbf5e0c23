import Foundation

/// Handlers that run on the main actor, so they can update main-actor state (a view model, UI) directly.
///
/// Each `onMainActor` method adds the same handler as its `on` counterpart, with a `@MainActor` closure. A request with
/// at least one of them runs all its handlers, in their usual order, in one job on the main actor, whatever the
/// client's ``SimpleNetworking/Configuration/handlerQueue``:
///
/// ```swift
/// @MainActor final class CatsModel {
///     var names: [String] = []
///     var failure: String?
///
///     func load(from api: SimpleNetworking) {
///         api.get("/cats")
///             .onMainActor(success: { response in self.names = (try? response.decode([String].self)) ?? [] })
///             .onMainActor(error: { error in self.failure = error.localizedDescription })
///             .execute()
///     }
/// }
/// ```
///
/// The main actor must be running for them to run: in an app it always is; in a command-line tool, only while its
/// top-level code or `main` awaits.
extension SimpleRequest {
    /// Adds a status handler that runs on the main actor; see ``on(httpStatus:_:)-(Int,_)``.
    /// - Parameters:
    ///   - status: The status code, for example `401`.
    ///   - handler: Called with this request and the response; returns whether to continue.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(
        httpStatus status: Int, _ handler: @escaping @MainActor @Sendable (SimpleRequest, SimpleResponse) -> Bool
    ) -> Self {
        onMainActor(httpStatus: status...status, handler)
    }

    /// Adds a status handler for a range of statuses, such as `500...599`, that runs on the main actor.
    /// - Parameters:
    ///   - statuses: The statuses the handler applies to.
    ///   - handler: Called with this request and the response; returns whether to continue.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(
        httpStatus statuses: ClosedRange<Int>,
        _ handler: @escaping @MainActor @Sendable (SimpleRequest, SimpleResponse) -> Bool
    ) -> Self {
        runHandlersOnMainActor()
        return on(httpStatus: statuses) { request, response in
            MainActor.assumeIsolated { handler(request, response) }
        }
    }

    /// Adds an error handler that runs on the main actor; see ``on(error:)-((SimpleNetworkingError)->Void)``.
    /// - Parameter handler: Called with the error.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(error handler: @escaping @MainActor @Sendable (SimpleNetworkingError) -> Void) -> Self {
        runHandlersOnMainActor()
        return on(error: { error in MainActor.assumeIsolated { handler(error) } })
    }

    /// Adds an error handler that runs on the main actor and also receives the response, or `nil` when none arrived;
    /// see ``on(error:)-((SimpleNetworkingError,SimpleResponse?)->Void)``.
    /// - Parameter handler: Called with the error and the response.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(
        error handler: @escaping @MainActor @Sendable (SimpleNetworkingError, SimpleResponse?) -> Void
    ) -> Self {
        runHandlersOnMainActor()
        return on(error: { error, response in MainActor.assumeIsolated { handler(error, response) } })
    }

    /// Adds a success handler that runs on the main actor; see ``on(success:)``.
    /// - Parameter handler: Called with the response.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(success handler: @escaping @MainActor @Sendable (SimpleResponse) -> Void) -> Self {
        runHandlersOnMainActor()
        return on(success: { response in MainActor.assumeIsolated { handler(response) } })
    }

    /// Adds a completion handler that runs on the main actor; see ``on(completion:)``.
    /// - Parameter handler: Called with no arguments, last, once per execution.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(completion handler: @escaping @MainActor @Sendable () -> Void) -> Self {
        runHandlersOnMainActor()
        return on(completion: { MainActor.assumeIsolated { handler() } })
    }

    /// Adds a progress handler that runs on the main actor; see ``progress(_:)``. Once a request has one, all its
    /// progress handlers run on the main actor.
    /// - Parameter handler: Receives each progress value, upload and download (``TransferProgress/direction``).
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(progress handler: @escaping @MainActor @Sendable (TransferProgress) -> Void) -> Self {
        progressReporter.runOnMainActor()
        return progress { progress in MainActor.assumeIsolated { handler(progress) } }
    }

    /// Adds a handler for each server-sent event that runs on the main actor; see ``on(event:)``.
    /// - Parameter handler: Called with each event.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(event handler: @escaping @MainActor @Sendable (ServerSentEvent) -> Void) -> Self {
        runHandlersOnMainActor()
        return on(event: { event in MainActor.assumeIsolated { handler(event) } })
    }

    /// Adds a handler for the opening of each connection of an event stream that runs on the main actor; see
    /// ``on(open:)``.
    /// - Parameter handler: Called with each connection's response head.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(open handler: @escaping @MainActor @Sendable (SimpleResponse) -> Void) -> Self {
        runHandlersOnMainActor()
        return on(open: { response in MainActor.assumeIsolated { handler(response) } })
    }

    /// Adds a handler for the end of each connection of an event stream that runs on the main actor; see
    /// ``on(close:)``.
    /// - Parameter handler: Called when a connection ends, with what ended it.
    /// - Returns: This request.
    @discardableResult
    public func onMainActor(close handler: @escaping @MainActor @Sendable (SimpleNetworkingError?) -> Void) -> Self {
        runHandlersOnMainActor()
        return on(close: { reason in MainActor.assumeIsolated { handler(reason) } })
    }

    /// From now on the request's handlers run in one job on the main actor.
    private func runHandlersOnMainActor() {
        update { $0.handlers.queue = .mainActor }
    }
}
