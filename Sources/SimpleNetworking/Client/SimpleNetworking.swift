import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client for one HTTP API: a base URL, default headers, and one long-lived session of its own.
///
/// Make one per API, often as a shared instance, and subclass it to add behaviour to every request by overriding
/// ``execute(request:)``:
///
/// ```swift
/// extension SimpleNetworking {
///     static let github = SimpleNetworking(baseURL: URL(string: "https://api.github.com")!)
/// }
/// ```
///
/// The base URL can also come from a provider asked when each attempt is built, so one client follows an
/// environment picker: see ``init(baseURLProvider:session:configuration:)``.
///
/// Safe to use from any thread: properties are constants except ``defaultHeaders``, which is guarded by a lock.
open class SimpleNetworking: @unchecked Sendable {
    // @unchecked Sendable: stored properties are `let`s of Sendable types; the one mutable value, the default
    // headers, lives in `storedDefaultHeaders` behind its lock (the base URL source keeps its last checked value
    // behind a lock of its own). Subclasses must keep their own state as safe.

    /// The URL every request path is appended to.
    ///
    /// For a client made with a base URL provider, the provider's value now: each read asks it again, and the next
    /// attempt may use a newer value.
    public var baseURL: URL { baseURLSource.url }
    /// The client's settings, fixed at initialization.
    public let configuration: Configuration
    /// What sends requests: URLSession by default, or a test double.
    public let transport: any HTTPTransport
    /// The jar the client stores and sends cookies with, on every redirect hop; `nil` when
    /// ``Configuration/cookies`` is ``CookieHandling/disabled``. List, add and remove cookies through it.
    public let cookieJar: CookieJar?

    /// The ``defaultHeaders`` behind their lock; building a request reads them here
    /// (``makeHTTPRequest(for:)``).
    let storedDefaultHeaders: Locked<HTTPHeaders>
    let baseURLSource: BaseURLSource
    let reauthentication: Reauthentication
    let retryBudget: RetryTokenBucket
    /// The configured sensitive header and query parameter names, lowercased once for matching.
    let sensitiveData: SensitiveData
    /// Whether anything receives this client's events: an ``Configuration/eventHandler`` or an
    /// ``Configuration/eventMonitors`` entry (<doc:Interceptors>). Without either, no event is made, and an attempt
    /// reads no clock for its timings. Stored, so that a request nobody observes does not enter the observability
    /// code at all.
    let isObserved: Bool
    /// The timeout of an attempt whose request sets none: ``Configuration/timeout`` when usable, else 60 s; a request's
    /// own is made usable when it is set (``SimpleRequest/timeout(_:)``).
    let attemptTimeout: TimeInterval
    /// The parts of ``Configuration/tls`` the transport does not enforce, or `nil` when there are none, so that a hop
    /// costs no TLS check; else each HTTPS hop they apply to is refused (``SimpleNetworking/refuseUnenforcedTLS(_:)``).
    let tlsShortfall: TLSRequirements?

    /// Creates a client with its own ephemeral URLSession, or with `session` if you pass one.
    ///
    /// The library's session has no URL cache, no cookie or credential storage, and a delegate of the library's
    /// that enforces redirect, size and timeout rules. A session you pass is used as it is, with its own delegate
    /// and policies; prefer leaving `session` out and setting `configuration` instead.
    /// - Parameters:
    ///   - baseURL: An `http` or `https` URL; its path is kept, and request paths are appended to it.
    ///   - session: A session to use as it is; `nil` (the default) creates the library's own.
    ///   - configuration: Settings for the client. Default: ``Configuration/init()``.
    public convenience init(
        baseURL: URL, session: URLSession? = nil, configuration: Configuration = Configuration()
    ) {
        let transport =
            session.map { URLSessionTransport(session: $0) } ?? URLSessionTransport(configuration: configuration)
        self.init(baseURL: baseURL, transport: transport, configuration: configuration)
    }

    /// Creates a client that sends through `transport`, such as `MockTransport` in tests.
    /// - Parameters:
    ///   - baseURL: An `http` or `https` URL; its path is kept, and request paths are appended to it.
    ///   - transport: What sends requests.
    ///   - configuration: Settings for the client. Default: ``Configuration/init()``.
    public init(baseURL: URL, transport: any HTTPTransport, configuration: Configuration = Configuration()) {
        self.baseURLSource = BaseURLSource(fixed: baseURL)
        self.configuration = configuration
        self.storedDefaultHeaders = Locked(configuration.defaultHeaders)
        self.reauthentication = Reauthentication(limit: configuration.refreshLimit, clock: configuration.clock)
        self.retryBudget = RetryTokenBucket(configuration.retryBudget, now: configuration.clock.now())
        self.sensitiveData = SensitiveData(configuration)
        self.isObserved = configuration.eventHandler != nil || !configuration.eventMonitors.isEmpty
        self.attemptTimeout = configuration.attemptTimeout(requested: nil)
        self.tlsShortfall = Self.shortfall(of: configuration.tls, on: transport)
        self.transport = transport
        self.cookieJar = configuration.cookies.makeJar(clock: configuration.clock)
    }

    /// Creates a client whose base URL is asked of `baseURLProvider` each time an attempt is built, with its own
    /// ephemeral URLSession, or with `session` if you pass one.
    ///
    /// One client then follows an environment picker while keeping its default headers, tokens and
    /// re-authentication state. Each attempt, retries included, reads the provider once, and everything about that
    /// attempt follows that value: the URL, whether default headers go to its origin, and which redirects leave it.
    /// Each new value is checked once, as a fixed base URL is; an unusable one fails the attempt with
    /// ``SimpleNetworkingError/invalidURL(reason:)`` and nothing is sent.
    ///
    /// ```swift
    /// let api = SimpleNetworking(baseURLProvider: { environment.current.url })
    /// ```
    /// - Parameters:
    ///   - baseURLProvider: Returns the base URL now. It is called from any thread, outside the client's locks, and
    ///     must be fast and thread-safe.
    ///   - session: A session to use as it is; `nil` (the default) creates the library's own.
    ///   - configuration: Settings for the client. Default: ``Configuration/init()``.
    public convenience init(
        baseURLProvider: @escaping @Sendable () -> URL, session: URLSession? = nil,
        configuration: Configuration = Configuration()
    ) {
        let transport =
            session.map { URLSessionTransport(session: $0) } ?? URLSessionTransport(configuration: configuration)
        self.init(baseURLProvider: baseURLProvider, transport: transport, configuration: configuration)
    }

    /// Creates a client whose base URL is asked of `baseURLProvider` each time an attempt is built, and that sends
    /// through `transport`.
    /// - Parameters:
    ///   - baseURLProvider: Returns the base URL now; see ``init(baseURLProvider:session:configuration:)``.
    ///   - transport: What sends requests.
    ///   - configuration: Settings for the client. Default: ``Configuration/init()``.
    public init(
        baseURLProvider: @escaping @Sendable () -> URL, transport: any HTTPTransport,
        configuration: Configuration = Configuration()
    ) {
        self.baseURLSource = BaseURLSource(provider: baseURLProvider)
        self.configuration = configuration
        self.storedDefaultHeaders = Locked(configuration.defaultHeaders)
        self.reauthentication = Reauthentication(limit: configuration.refreshLimit, clock: configuration.clock)
        self.retryBudget = RetryTokenBucket(configuration.retryBudget, now: configuration.clock.now())
        self.sensitiveData = SensitiveData(configuration)
        self.isObserved = configuration.eventHandler != nil || !configuration.eventMonitors.isEmpty
        self.attemptTimeout = configuration.attemptTimeout(requested: nil)
        self.tlsShortfall = Self.shortfall(of: configuration.tls, on: transport)
        self.transport = transport
        self.cookieJar = configuration.cookies.makeJar(clock: configuration.clock)
    }

    /// Headers added to every attempt when it is sent; a header set on the request wins.
    ///
    /// Read and write from any thread, even with requests in flight. Because they are merged at send time, a retry
    /// picks up a refreshed token. No lock is held while your code runs, so reading one default header while writing
    /// another (`defaultHeaders["A"]?.append(defaultHeaders["B"] ?? "")`) cannot deadlock, and an `inout` use across
    /// an `await` holds nothing. An in-place write such as `defaultHeaders["Authorization"] = value` changes only the
    /// names it touched, so concurrent writers of different names never undo each other; to read and write as one
    /// atomic step, use ``updateDefaultHeaders(_:)``.
    public var defaultHeaders: HTTPHeaders {
        get { storedDefaultHeaders.current }
        set { storedDefaultHeaders.set(newValue) }
        _modify {
            let before = storedDefaultHeaders.current
            var edited = before
            yield &edited
            let changes = before.changes(to: edited)
            guard !changes.isEmpty else { return }
            storedDefaultHeaders.withLock { headers in
                for change in changes { headers.replaceValues(of: change.name, with: change.values) }
            }
        }
    }

    /// Reads and writes the default headers as one atomic step.
    ///
    /// ```swift
    /// api.updateDefaultHeaders { headers in
    ///     headers["X-Request-Count"] = String((Int(headers["X-Request-Count"] ?? "") ?? 0) + 1)
    /// }
    /// ```
    /// - Parameter body: Changes the headers. It runs under the client's lock: it must not touch this client's
    ///   ``defaultHeaders``, nor block.
    /// - Returns: What `body` returns.
    @discardableResult
    public func updateDefaultHeaders<Result>(_ body: (inout HTTPHeaders) throws -> Result) rethrows -> Result {
        try storedDefaultHeaders.withLock(body)
    }

    /// The one path every request takes, on its first attempt and on every retry.
    ///
    /// Override it to add behaviour to every request, such as a global 401 handler, and call `super` to send:
    ///
    /// ```swift
    /// override func execute(request: SimpleRequest) {
    ///     if request.httpStatusHandlers[401] == nil {
    ///         request.on(httpStatus: 401) { request, _ in
    ///             // Authenticate, then:
    ///             request.retry()
    ///             return false
    ///         }
    ///     }
    ///     super.execute(request: request)
    /// }
    /// ```
    ///
    /// Calling `super` is what sends the attempt. An override may call it later instead, from any thread (a gate that
    /// waits until the app is online, say): the execution waits for it. An override that never calls it sends
    /// nothing; the execution then ends only when the request is cancelled (``SimpleRequest/cancel()`` or cancelling
    /// the task that awaits it end it with ``SimpleNetworkingError/cancelled`` at once) or its deadline passes.
    /// - Parameter request: The request to send.
    open func execute(request: SimpleRequest) {
        request.sendAttempt(on: self)
    }

    /// Refreshes credentials; override it to use ``reauthenticate(_:on:)``.
    ///
    /// Called by the client, never by more than one request at a time: however many requests get a 401 together,
    /// one call runs and the others wait for it. Requests made inside it are never re-authenticated themselves, so an
    /// authentication endpoint that answers 401 cannot recurse. Store the new credential where requests read it,
    /// typically ``defaultHeaders``.
    ///
    /// ```swift
    /// override func authenticate() async throws {
    ///     let token = try await post("/auth").body(json: credentials).decode(Token.self)
    ///     defaultHeaders["Authorization"] = "Bearer \(token.value)"
    /// }
    /// ```
    /// - Throws: Any error; waiting requests fail with ``SimpleNetworkingError/authenticationFailed(reason:underlying:)``.
    ///   The default implementation throws, since there is nothing to refresh.
    open func authenticate() async throws {
        throw SimpleNetworkingError.authenticationFailed(
            reason: "\(type(of: self)) does not override authenticate()", underlying: nil)
    }

    /// Stops the client: requests in flight are cancelled and the session is invalidated and let go, so that its
    /// connections close even while the client is still held. The client cannot send afterwards; requests fail with a
    /// transport error.
    public func close() {
        transport.close()
    }
}
