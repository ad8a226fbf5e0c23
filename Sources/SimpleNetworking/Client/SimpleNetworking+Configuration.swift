import Foundation

extension SimpleNetworking {
    /// Settings for a client, fixed when it is created.
    ///
    /// ```swift
    /// var configuration = SimpleNetworking.Configuration()
    /// configuration.timeout = 10
    /// configuration.handlerQueue = .mainActor
    /// let api = SimpleNetworking(baseURL: url, configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// Where handlers run. Default: ``HandlerQueue/background``.
        public var handlerQueue: HandlerQueue = .background
        /// How many times ``SimpleRequest/retry()`` may run a request again in one execution. Default: 3.
        public var maximumRetries: Int = 3
        /// When the client retries by itself. Default: ``RetryPolicy/default``.
        public var retryPolicy: RetryPolicy = .default
        /// The per-client limit on automatic retries. Default: 10 tokens, 1 more per second.
        public var retryBudget = RetryBudget()
        /// The longest one execution may take, across all attempts, redirects and waits; `nil` for none.
        /// Default: `nil`.
        public var deadline: TimeInterval?
        /// How often re-authentication may run. Default: 3 refreshes per 60 seconds.
        public var refreshLimit = RefreshLimit()
        /// The time source for deadlines and waits. Default: ``SimpleClock/system``.
        public var clock: SimpleClock = .system
        /// The jitter source for backoff. Default: ``RandomSource/system``.
        public var random: RandomSource = .system
        /// How event streams reconnect and what bounds them, unless a request sets its own with
        /// ``SimpleRequest/eventStream(_:)``. Default:
        /// ``EventStreamOptions/init(reconnects:reconnectionTime:idleTimeout:maximumEventSize:bufferSize:backoff:)``
        /// with its defaults.
        public var eventStreams = EventStreamOptions()
        /// The most connections the client's own URLSession opens at once to one host (its
        /// `httpMaximumConnectionsPerHost`); requests beyond them wait for a free one. Default: 6 on every platform
        /// (URLSession's own default on macOS and Linux; on iOS its own is 4).
        ///
        /// Each open event stream holds a connection for as long as it runs, so a client that keeps several streams
        /// open to one host needs room for them and for its other requests: with the default, a seventh stream, or a
        /// plain request behind six streams, waits until one ends (and may time out first). Values below 1 mean 1. A
        /// `URLSession` passed to the client is used as it is, and the AsyncHTTPClient engine has its own setting,
        /// `AsyncHTTPClientTransport.Configuration.maximumConnectionsPerHost`.
        public var maximumConnectionsPerHost: Int = 6
        /// The time one attempt may take, in seconds, from sending to the last byte. Default: 60.
        ///
        /// Zero, negative values and NaN mean the default of 60 s; values above ``maximumTimeout``, infinity
        /// included, are clamped to it.
        public var timeout: TimeInterval = Configuration.defaultTimeout
        /// The default headers the client starts with. Default: none.
        public var defaultHeaders: HTTPHeaders = [:]
        /// The decoder for ``SimpleRequest/decode(_:decoder:on:)``. Default: a plain `JSONDecoder`.
        public var decoder = JSONDecoder()
        /// The encoder for ``SimpleRequest/body(json:)``. Default: a plain `JSONEncoder`.
        public var encoder = JSONEncoder()

        // MARK: Safety

        /// Which redirects are followed, by the library itself on every platform. Default: ``RedirectPolicy/follow(limit:)``
        /// with 10, refusing `https` to `http`. A request can override it with ``SimpleRequest/redirects(_:)``.
        public var redirectPolicy: RedirectPolicy = .follow(limit: 10)
        /// The largest response body accepted, in bytes, counted after decompression as the bytes arrive; a larger one
        /// is cancelled and fails with ``SimpleNetworkingError/responseTooLarge(limit:)``. Applies to every redirect hop.
        /// Default: 10 MiB (10,485,760). A request can override it with ``SimpleRequest/maximumResponseBodySize(_:)``.
        public var maximumResponseBodySize: Int = 10 * 1024 * 1024
        /// Headers holding secrets, compared without regard to case: removed for the rest of a redirect chain once it
        /// leaves the original origin, and redacted in cURL descriptions. Default:
        /// ``defaultSensitiveHeaders``; insert your own API-key headers.
        public var sensitiveHeaders: Set<String> = Configuration.defaultSensitiveHeaders
        /// Query parameters (and JSON or form body fields) whose values are redacted in events and cURL descriptions,
        /// compared without regard to case. Default: ``defaultSensitiveQueryParameters``.
        public var sensitiveQueryParameters: Set<String> = Configuration.defaultSensitiveQueryParameters
        /// Whether a `Host` header set on a request or in the default headers is sent, for a server reached by an
        /// address other than its name. The header is dropped when a redirect goes to another origin. Default:
        /// `false`: a `Host` header fails with ``SimpleNetworkingError/invalidRequest(reason:)``, as the other
        /// framing headers (`Content-Length`, `Transfer-Encoding`, `Connection`, ...) always do.
        public var allowsHostHeader = false
        /// Where the client keeps cookies. Default: ``CookieHandling/perClient``, an in-memory ``CookieJar`` of the
        /// client's own that stores `Set-Cookie` from every response, redirects included, and sends matching cookies
        /// on every hop. URLSession's own cookie storage always stays off (see the "Cookies" article).
        public var cookies: CookieHandling = .perClient
        /// Receives a ``NetworkEvent`` for each step of each request, on any thread, before ``eventMonitors``; keep it
        /// fast. Default: `nil`.
        public var eventHandler: (@Sendable (NetworkEvent) -> Void)?
        /// Receive every ``NetworkEvent``, as ``eventHandler`` does, in this order, after it: metrics, logging and
        /// tracing kept apart. Default: none.
        public var eventMonitors: [any EventMonitor] = []
        /// The interceptors every attempt of every request goes through, in order, before those of the request
        /// (``SimpleRequest/intercept(with:)``): see ``RequestInterceptor``. Default: none.
        public var interceptors: [any RequestInterceptor] = []
        /// The client's private HTTP cache (RFC 9111), in memory or on disk: fresh responses answer without the
        /// server, stale ones are revalidated, on every transport and platform (<doc:HTTPCaching>). It is the last stage
        /// of each attempt's pipeline, after the interceptors. Default: `nil`, no cache; the platform's `URLCache`
        /// stays off either way.
        public var cache: HTTPCache?
        /// What HTTPS connections must satisfy beyond the platform's defaults: extra or only given trust roots,
        /// public-key pins, a client identity, a minimum TLS version (see the "TLS" article). A transport that cannot
        /// enforce a part refuses the HTTPS requests it applies to with
        /// ``SimpleNetworkingError/unsupportedByTransport(reason:)``. Default: ``TLSPolicy/system``.
        public var tls = TLSPolicy.system

        /// Creates the default configuration.
        public init() {}

        /// The longest per-attempt timeout, in seconds: 10,000,000 (about 116 days). A longer ``timeout`` or
        /// ``SimpleRequest/timeout(_:)``, infinity included, is clamped to it, so the value handed to URLSession is
        /// always finite: FoundationNetworking traps on a timeout of about 1e16 s or more (see "URLSession on
        /// Linux" in the documentation).
        public static let maximumTimeout: TimeInterval = TransportOptions.maximumTimeout

        /// The per-attempt timeout when none usable is configured.
        static let defaultTimeout: TimeInterval = 60

        /// The timeout of one attempt: the request's own when usable, else ``timeout`` when usable, else 60 s;
        /// never above ``maximumTimeout`` (``TransportOptions/usableTimeout(_:)``).
        func attemptTimeout(requested: TimeInterval?) -> TimeInterval {
            TransportOptions.usableTimeout(requested) ?? TransportOptions.usableTimeout(timeout) ?? Self.defaultTimeout
        }
    }
}
