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
        /// The time one attempt may take, in seconds, from sending to the last byte. Default: 60.
        public var timeout: TimeInterval = 60
        /// The default headers the client starts with. Default: none.
        public var defaultHeaders: HTTPHeaders = [:]
        /// The decoder for ``SimpleRequest/decode(_:)``. Default: a plain `JSONDecoder`.
        public var decoder = JSONDecoder()
        /// The encoder for ``SimpleRequest/body(json:)``. Default: a plain `JSONEncoder`.
        public var encoder = JSONEncoder()

        /// Creates the default configuration.
        public init() {}
    }
}
