/// The status handlers of a request, in the order they were added.
///
/// Look up the handlers that apply to a status with the subscript; it is `nil` when none does, so a subclass can
/// write `if request.httpStatusHandlers[401] == nil { ... }`.
public struct HTTPStatusHandlers: Sendable {
    /// A status handler: return `true` to let the next handler run, `false` to stop the chain.
    public typealias Handler = @Sendable (SimpleRequest, SimpleResponse) -> Bool

    struct Entry: Sendable {
        let statuses: ClosedRange<Int>
        let handler: Handler
    }

    private(set) var entries: [Entry] = []

    /// Creates an empty collection.
    public init() {}

    /// The handlers that apply to `status`, in the order added, or `nil` when there are none.
    public subscript(status: Int) -> [Handler]? {
        let matching = entries.lazy.filter { $0.statuses.contains(status) }.map(\.handler)
        return matching.isEmpty ? nil : Array(matching)
    }

    /// The number of handlers registered.
    public var count: Int { entries.count }

    /// Whether no handler is registered.
    public var isEmpty: Bool { entries.isEmpty }

    mutating func append(_ statuses: ClosedRange<Int>, _ handler: @escaping Handler) {
        entries.append(Entry(statuses: statuses, handler: handler))
    }
}

extension SimpleRequest {
    typealias ErrorHandler = @Sendable (SimpleNetworkingError, SimpleResponse?) -> Void
    typealias SuccessHandler = @Sendable (SimpleResponse) -> Void
    typealias CompletionHandler = @Sendable () -> Void

    /// Adds a handler for one HTTP status. Status handlers run first, in the order added.
    ///
    /// Return `true` to continue with the next handler (and then the success or error handlers), or `false` to
    /// stop. A handler that stops the chain can call ``retry()`` before it returns to run the request again.
    /// - Parameters:
    ///   - status: The status code, for example `401`.
    ///   - handler: Called with this request and the response.
    /// - Returns: This request.
    @discardableResult
    public func on(httpStatus status: Int, _ handler: @escaping HTTPStatusHandlers.Handler) -> Self {
        on(httpStatus: status...status, handler)
    }

    /// Adds a handler for a range of HTTP statuses, such as `500...599`.
    /// - Parameters:
    ///   - statuses: The statuses the handler applies to.
    ///   - handler: Called with this request and the response; returns whether to continue.
    /// - Returns: This request.
    @discardableResult
    public func on(httpStatus statuses: ClosedRange<Int>, _ handler: @escaping HTTPStatusHandlers.Handler) -> Self {
        update { $0.handlers.statusHandlers.append(statuses, handler) }
    }

    /// Adds a handler for a half-open range of HTTP statuses, such as `400..<500`.
    /// - Parameters:
    ///   - statuses: The statuses the handler applies to; an empty range never matches.
    ///   - handler: Called with this request and the response; returns whether to continue.
    /// - Returns: This request.
    @discardableResult
    public func on(httpStatus statuses: Range<Int>, _ handler: @escaping HTTPStatusHandlers.Handler) -> Self {
        guard let last = statuses.last else { return self }
        return on(httpStatus: statuses.lowerBound...last, handler)
    }

    /// Adds an error handler: it runs when the request fails, or when a status outside 2xx was not stopped by a
    /// status handler.
    /// - Parameter handler: Called with the error.
    /// - Returns: This request.
    @discardableResult
    public func on(error handler: @escaping @Sendable (SimpleNetworkingError) -> Void) -> Self {
        on(error: { error, _ in handler(error) })
    }

    /// Adds an error handler that also receives the response, or `nil` when none arrived.
    /// - Parameter handler: Called with the error and the response.
    /// - Returns: This request.
    @discardableResult
    public func on(error handler: @escaping @Sendable (SimpleNetworkingError, SimpleResponse?) -> Void) -> Self {
        update { $0.handlers.errorHandlers.append(handler) }
    }

    /// Adds a success handler: it runs for a 2xx response once every status handler has continued.
    /// - Parameter handler: Called with the response.
    /// - Returns: This request.
    @discardableResult
    public func on(success handler: @escaping @Sendable (SimpleResponse) -> Void) -> Self {
        update { $0.handlers.successHandlers.append(handler) }
    }

    /// Adds a completion handler: it runs last, exactly once per execution, whatever happened.
    /// - Parameter handler: Called with no arguments.
    /// - Returns: This request.
    @discardableResult
    public func on(completion handler: @escaping @Sendable () -> Void) -> Self {
        update { $0.handlers.completionHandlers.append(handler) }
    }
}
