import Foundation

/// A request under construction: what to send, and the handlers that decide what happens with the answer.
///
/// Builder methods return the request, so calls chain. Nothing is sent until ``execute(on:)``, ``response(on:)`` or
/// ``decode(_:decoder:on:)``; after that the request can be retried with ``retry()`` and stopped with ``cancel()``.
///
/// ```swift
/// SimpleNetworking.get("/users/42")
///     .accept(.json)
///     .on(success: { response in print(response.statusCode) })
///     .on(error: { error in print(error) })
///     .execute(on: api)
/// ```
///
/// `SimpleRequest` is safe to use from any thread.
public final class SimpleRequest: Sendable {
    /// What the request is built from: every builder method changes it, and each attempt copies it once
    /// (``Snapshot``).
    let state: Locked<State>
    /// The execution in progress and what the last one did, behind a lock of their own.
    let execution = Locked(ExecutionSlot())

    /// Creates a request for a path relative to the client's base URL.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - path: The path, appended to the base URL's path; it may carry a query after `?`. A path that would
    ///     leave the base URL's origin (`//host/x`, `http://host/x`) is refused when the request runs.
    public init(method: HTTPMethod, path: String) {
        state = Locked(State(method: method, target: .path(path)))
    }

    /// Creates a request for an absolute URL, which deliberately bypasses the client's base URL.
    ///
    /// The client's default headers are only added when the URL has the base URL's origin.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: An absolute `http` or `https` URL.
    public init(method: HTTPMethod, url: URL) {
        state = Locked(State(method: method, target: .absolute(url)))
    }

    /// The HTTP method.
    public var method: HTTPMethod { state.withLock { $0.parts.method } }

    /// The headers set on this request; the client's default headers are merged in when each attempt is sent.
    public var headers: HTTPHeaders { state.withLock { $0.parts.headers } }

    /// The status handlers registered so far, so a subclass can see whether one for a status is already there.
    public var httpStatusHandlers: HTTPStatusHandlers { state.withLock { $0.handlers.statusHandlers } }

    /// The client this request is bound to or last ran on.
    public var client: SimpleNetworking? { execution.withLock { $0.client } }

    /// How many attempts have been sent in the current execution.
    public var attemptCount: Int { execution.withLock { $0.record.attempts } }

    /// The attempts of the current execution so far, oldest first.
    public var attempts: [RequestAttempt] { execution.withLock { $0.record.history } }

    /// Binds the request to a client, so ``retry()`` and ``response(on:)`` know where to run.
    func bind(to client: SimpleNetworking) -> Self {
        execution.withLock { $0.client = client }
        return self
    }

    /// In debug builds, reports a request released with handlers that never ran because it was never executed
    /// (``neverExecutedReporter``): `api.get("/x").on(success: ...)` without `.execute()` compiles and sends nothing.
    deinit {
        #if DEBUG
            let (executed, stream) = execution.withLock { ($0.executions > 0, $0.eventStreamTask != nil) }
            guard !executed, !stream else { return }
            let (handlers, events, target) = state.withLock {
                ($0.handlers, !$0.eventHandlers.isEmpty, $0.parts.target)
            }
            let hasHandlers =
                events || !handlers.successHandlers.isEmpty || !handlers.errorHandlers.isEmpty
                || !handlers.completionHandlers.isEmpty || !handlers.valueHandlers.isEmpty
                || !handlers.statusHandlers.isEmpty
            guard hasHandlers else { return }
            let named: String
            switch target {
            case .path(let path): named = path
            case .absolute(let url): named = url.path
            }
            Self.neverExecutedReporter.current(
                "SimpleNetworking: a request for \(named) with handlers was released without being executed, so it "
                    + "sent nothing and its handlers never ran; end the chain with .execute() (or .execute(on: api)), "
                    + "or await .response()")
        #endif
    }

    /// Where debug builds report a request released unexecuted with handlers (see `deinit`): standard error by
    /// default; tests replace it to observe the report.
    package static let neverExecutedReporter = Locked<@Sendable (String) -> Void>({ message in
        FileHandle.standardError.write(Data((message + "\n").utf8))
    })

    /// Changes the request's state under its lock: the one step of every builder method.
    /// - Returns: This request, for chaining.
    @discardableResult
    func update(_ body: (inout State) -> Void) -> Self {
        state.withLock(body)
        return self
    }
}

// MARK: - Building

extension SimpleRequest {
    /// Sets a header on this request; it wins over a default header of the same name.
    /// - Parameters:
    ///   - name: The header name; it must be an HTTP token, or the request fails with `invalidRequest`.
    ///   - value: The value; control characters other than tab make the request fail with `invalidRequest`.
    ///     `nil` removes the header.
    /// - Returns: This request.
    @discardableResult
    public func header(_ name: String, _ value: String?) -> Self {
        update { $0.parts.headers[name] = value }
    }

    /// Appends a query parameter, percent-encoded so that any character is sent literally.
    /// - Parameters:
    ///   - name: The parameter name.
    ///   - value: The value; `nil` sends the name alone (`?flag`).
    /// - Returns: This request.
    @discardableResult
    public func query(_ name: String, _ value: String?) -> Self {
        update { $0.parts.queryItems.append(QueryItem(name: name, value: value)) }
    }

    /// Sets the `Accept` header.
    /// - Parameter type: The media type expected, for example `.json`.
    /// - Returns: This request.
    @discardableResult
    public func accept(_ type: MediaType) -> Self {
        header("Accept", type.rawValue)
    }

    /// Sets the time one attempt may take, from sending to the last byte of the body.
    ///
    /// Sub-second values are honoured on Linux too (see <doc:LinuxPlatformNotes>). Default: the client's
    /// ``SimpleNetworking/Configuration/timeout``.
    /// - Parameter seconds: The limit in seconds; values of zero or less, and NaN, mean the client's default. Values
    ///   above ``SimpleNetworking/Configuration/maximumTimeout``, infinity included, are clamped to it.
    /// - Returns: This request.
    @discardableResult
    public func timeout(_ seconds: TimeInterval) -> Self {
        update { $0.parts.timeout = TransportOptions.usableTimeout(seconds) }
    }

    /// Sets how many times ``retry()`` may run this request again in one execution.
    ///
    /// Default: the client's ``SimpleNetworking/Configuration/maximumRetries`` (3).
    /// - Parameter count: The number of retries allowed after the first attempt; negative values count as 0.
    /// - Returns: This request.
    @discardableResult
    public func retryLimit(_ count: Int) -> Self {
        update { $0.maximumRetries = max(0, count) }
    }

    /// Sets a raw body.
    ///
    /// Over URLSession a GET or HEAD request with a non-empty body fails with
    /// ``SimpleNetworkingError/unsupportedByTransport(reason:)`` and nothing is sent; the AsyncHTTPClient engine
    /// sends it.
    /// - Parameters:
    ///   - data: The bytes to send.
    ///   - contentType: The `Content-Type`, unless the request already sets one; `nil` sends none.
    /// - Returns: This request.
    @discardableResult
    public func body(_ data: Data, contentType: MediaType? = .octetStream) -> Self {
        update { $0.parts.body = .data(data, contentType) }
    }

    /// Sets a text body, encoded as UTF-8.
    ///
    /// Over URLSession a GET or HEAD request with a non-empty body fails with
    /// ``SimpleNetworkingError/unsupportedByTransport(reason:)`` and nothing is sent; the AsyncHTTPClient engine
    /// sends it.
    /// - Parameters:
    ///   - text: The text to send.
    ///   - contentType: The `Content-Type`, unless the request already sets one.
    /// - Returns: This request.
    @discardableResult
    public func body(_ text: String, contentType: MediaType = .plainText) -> Self {
        body(Data(text.utf8), contentType: contentType)
    }

    /// Sets a JSON body, encoded with the client's encoder when each attempt is sent.
    ///
    /// Sets `Content-Type: application/json` unless the request already sets one. An encoding failure reaches
    /// the error handlers as `invalidRequest` and nothing is sent.
    /// Over URLSession a GET or HEAD request cannot carry one: it fails with `unsupportedByTransport`.
    /// - Parameter value: The value to encode.
    /// - Returns: This request.
    @discardableResult
    public func body<Value: Encodable & Sendable>(json value: Value) -> Self {
        update { $0.parts.body = .json(value) }
    }
}

// MARK: - Handlers

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

// MARK: - State

extension SimpleRequest {
    /// Where the request goes.
    enum Target: Sendable {
        case path(String)
        case absolute(URL)
    }

    /// A query parameter as given, encoded when the URL is built.
    struct QueryItem: Sendable {
        var name: String
        var value: String?
    }

    /// A body as given; JSON is encoded when each attempt is sent.
    enum Body: Sendable {
        case data(Data, MediaType?)
        /// `indirect`: a value of unknown type is held in a box, so that a request's parts are copied by plain
        /// reference counting, not through run-time type information (<doc:Performance>).
        indirect case json(any Encodable & Sendable)
        /// A file, streamed from disk as it is sent.
        case file(URL, MediaType?)
        /// A multipart form, encoded for each attempt.
        case multipart(MultipartFormData)
        /// A body that could not be encoded when it was set; the request fails with `invalidRequest(reason:)` and
        /// nothing is sent.
        case unusable(reason: String)

        /// Whether there are no bytes to send; a JSON body always has some.
        var isEmpty: Bool {
            if case .data(let data, _) = self { return data.isEmpty }
            return false
        }
    }

    /// What a request is built from: what it sends, its handlers and its retry settings.
    struct State: Sendable {
        /// What each attempt is built from: the one copy of the request's fields.
        var parts: Parts
        /// What happens with the answer.
        var handlers = Handlers()
        var maximumRetries: Int?
        var retryPolicy: RetryPolicy?
        var deadline: TimeInterval?
        /// Statuses ``SimpleNetworking/reauthenticate(_:on:)`` has installed a handler for.
        var reauthenticationStatuses: Set<Int> = []
        /// The event stream settings this request asked for (``SimpleRequest/eventStream(_:)``).
        var eventStreamOptions: EventStreamOptions?
        /// The changes this request makes to its event stream settings, in order, after `eventStreamOptions` (or the
        /// client's) are taken.
        var eventStreamEdits: [@Sendable (inout EventStreamOptions) -> Void] = []
        /// The handlers of ``SimpleRequest/on(event:)``.
        var eventHandlers: [@Sendable (ServerSentEvent) -> Void] = []
        /// The handlers of ``SimpleRequest/on(open:)``.
        var openHandlers: [@Sendable (SimpleResponse) -> Void] = []
        /// The handlers of ``SimpleRequest/on(close:)``.
        var closeHandlers: [@Sendable (SimpleNetworkingError?) -> Void] = []

        init(method: HTTPMethod, target: Target) {
            parts = Parts(method: method, target: target)
        }
    }

    /// The fields of a request that an attempt is built from, and where its answer's body goes.
    struct Parts: Sendable {
        var method: HTTPMethod
        var target: Target
        var queryItems: [QueryItem] = []
        /// Why the request as built cannot be sent (query parameters from a value that is not a flat object, an
        /// endpoint path that does not form a URL); the request fails with it and nothing is sent.
        var buildProblem: SimpleNetworkingError?
        var headers: HTTPHeaders = [:]
        var body: Body?
        var timeout: TimeInterval?
        var safety = SafetySettings()
        /// Reports upload and download progress, once a handler or a sequence asked for it.
        var progress: ProgressReporter?
        /// Where the body of a 2xx response goes instead of memory, for a download or a response stream.
        var receiving: Receiving?
        /// The body of a 2xx response may take as long as it takes: an event stream's connections, whose silence is
        /// bounded by the stream's idle timeout instead of the attempt timeout.
        var unboundedBody = false
        /// This request's own interceptors (``SimpleRequest/intercept(with:)``), after the client's.
        var interceptors: [any RequestInterceptor] = []
    }

    /// The handlers of a request, in the order they were added, and its transform step.
    struct Handlers: Sendable {
        var statusHandlers = HTTPStatusHandlers()
        var errorHandlers: [ErrorHandler] = []
        var successHandlers: [SuccessHandler] = []
        /// The transform step of a ``TransformedRequest``, and the success handlers of its value.
        var transform: Transform?
        var valueHandlers: [ValueHandler] = []
        var completionHandlers: [CompletionHandler] = []
        /// What a 2xx must also be to succeed (``SimpleRequest/validate(statusCode:)``,
        /// ``SimpleRequest/validate(contentType:)``).
        var validation: ResponseValidation?
        /// Where the handlers run instead of the client's handler queue: the main actor, once a handler needs it
        /// (``SimpleRequest/onMainActor(success:)``).
        var queue: HandlerQueue?
    }

    /// Per-request overrides of the client's safety settings (<doc:SecurityDefaults>), and the request's identity in
    /// events.
    struct SafetySettings: Sendable {
        /// The same for every attempt and redirect of this request, in ``NetworkEvent/requestID``.
        let requestID = RequestIdentity.next()
        var redirectPolicy: RedirectPolicy?
        var maximumResponseBodySize: Int?
    }

    /// Where the body of a 2xx response goes instead of memory.
    enum Receiving: Sendable {
        /// To a file, through a temporary file in the same directory (``SimpleRequest/download(to:resumable:)``).
        case file(DownloadFile)
        /// To a response stream (``SimpleRequest/chunks(bufferSize:)``).
        case stream(ResponseStream)
    }
}

// MARK: - Status handlers

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

    // Registered here, by on(httpStatus:); read (the subscript, count, isEmpty) in SimpleRequest+Handling.swift, beside
    // the handler job that runs them.
    private(set) var entries: [Entry] = []

    /// Creates an empty collection.
    public init() {}

    mutating func append(_ statuses: ClosedRange<Int>, _ handler: @escaping Handler) {
        entries.append(Entry(statuses: statuses, handler: handler))
    }
}

// MARK: - Identity

/// The identities of requests in events (``NetworkEvent/requestID``): a random 128-bit base drawn once per process,
/// plus a counter, shaped as a version 4 UUID.
///
/// Unique within the process, and as unlikely to repeat across processes as random UUIDs are. Foundation's `UUID()`
/// on Linux opens and reads `/dev/urandom` for each one: three system calls on every request (<doc:Performance>).
enum RequestIdentity {
    private static let base: (high: UInt64, low: UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    private static let counter = Locked<UInt64>(0)

    /// A new identity.
    static func next() -> UUID {
        let count = counter.withLock { count -> UInt64 in
            count &+= 1
            return count
        }
        // Version 4 (byte 6 is 0x4_) and the RFC 4122 variant (byte 8 is 0b10______); the counter changes the low
        // 62 bits, so the first 2^62 identities differ. It is also scrambled into the high half, so that the first
        // eight characters a log line prints (``NetworkEvent/description``) tell requests apart.
        let scrambled = count &* 0x9E37_79B9_7F4A_7C15
        let high = ((base.high ^ scrambled) & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = ((base.low ^ count) & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let h = high.bigEndian
        let l = low.bigEndian
        return withUnsafeBytes(of: (h, l)) { bytes in
            UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
    }
}
