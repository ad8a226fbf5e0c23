import Foundation
import SimpleNetworking

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An in-memory ``HTTPTransport`` for unit tests: scripted replies, recorded requests, no sockets.
///
/// Requests still go through the client's whole pipeline (URL building, validation, handlers, retries).
///
/// ```swift
/// let transport = MockTransport()
/// transport.enqueue(.status(401))
/// transport.enqueue(.json(#"{"id": 1}"#))
/// let api = SimpleNetworking(baseURL: URL(string: "https://api.example.com")!, transport: transport)
/// ```
public final class MockTransport: HTTPTransport, Sendable {
    /// One scripted answer: a response or a transport failure, optionally after a delay.
    public struct Reply: Sendable {
        /// What the transport returns.
        public var result: Result<SimpleResponse, SimpleNetworkingError>
        /// Seconds to wait before answering; cancelling the request ends the wait.
        public var delay: TimeInterval

        /// Creates a reply.
        /// - Parameters:
        ///   - result: What the transport returns.
        ///   - delay: Seconds to wait before answering. Default: 0.
        public init(_ result: Result<SimpleResponse, SimpleNetworkingError>, delay: TimeInterval = 0) {
            self.result = result
            self.delay = delay
        }

        /// A response with `status`, optional headers and body.
        /// - Parameters:
        ///   - status: The status code.
        ///   - headers: The response headers.
        ///   - body: The response body.
        /// - Returns: The reply.
        public static func status(_ status: Int, headers: HTTPHeaders = [:], body: Data = Data()) -> Reply {
            Reply(.success(SimpleResponse(statusCode: status, headers: headers, body: body)))
        }

        /// A JSON response.
        /// - Parameters:
        ///   - json: The body text.
        ///   - status: The status code. Default: 200.
        /// - Returns: The reply.
        public static func json(_ json: String, status: Int = 200) -> Reply {
            .status(status, headers: ["Content-Type": "application/json"], body: Data(json.utf8))
        }

        /// A transport failure, such as `.timedOut` or `.cannotConnectToHost`.
        /// - Parameter code: The `URLError` code.
        /// - Returns: The reply.
        public static func failure(_ code: URLError.Code) -> Reply {
            Reply(.failure(.transportFailed(TransportFailure(URLError(code)))))
        }

        /// This reply, answered after `seconds`.
        /// - Parameter seconds: The delay.
        /// - Returns: The delayed reply.
        public func delayed(by seconds: TimeInterval) -> Reply {
            Reply(result, delay: seconds)
        }
    }

    /// Where replies come from when there is no script: a server's routes, served in memory.
    let server: MockServer?

    private struct State {
        var queue: [Reply] = []
        var route: (@Sendable (HTTPRequest) -> Reply)?
        var requests: [HTTPRequest] = []
    }

    private let state = Locked(State())

    /// Creates a transport with no replies queued; unscripted requests get a 404.
    public init() {
        server = nil
    }

    /// Creates a transport that answers from `server`'s queue and routes in memory, without sockets: faults are
    /// played as a transport would see them (delays wait, a dropped connection is a lost connection), and the
    /// request is recorded in `server.requests` too. Requests to any other host or port cannot connect.
    /// - Parameter server: The server whose routes answer.
    public init(serving server: MockServer) {
        self.server = server
    }

    /// Queues a reply; each request takes the next one, in order.
    /// - Parameter reply: The reply.
    public func enqueue(_ reply: Reply) {
        state.withLock { $0.queue.append(reply) }
    }

    /// Answers requests with `handler` once the queue is empty.
    /// - Parameter handler: Called with each request; returns its reply.
    public func route(_ handler: @escaping @Sendable (HTTPRequest) -> Reply) {
        state.withLock { $0.route = handler }
    }

    /// Every request received, in order, exactly as the client built it.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// The number of requests received.
    public var requestCount: Int { state.withLock { $0.requests.count } }

    /// Streams everything, in memory: bodies are handed over in pieces of ``pieceSize`` bytes, each once the reader
    /// has taken the last, and a body file is read in pieces too, with progress after each. A cancelled transfer
    /// ends a delay at once.
    public var capabilities: TransportCapabilities { [.streaming, .transferCancellation] }

    /// The size of the pieces a body is handed over in: 64 KiB.
    public static let pieceSize = 64 * 1024

    /// Records the request and answers with the next reply, within the options' limits, handing the body to
    /// `transfer` piece by piece. A request whose caller is already cancelled is neither recorded nor answered.
    /// - Parameters:
    ///   - request: The request.
    ///   - options: The timeout (a reply delayed past it times out) and the body size limit, counted as the pieces
    ///     are handed over.
    ///   - transfer: Receives the head and the body.
    /// - Returns: The scripted response's head, with the request's URL (and the scripted response's HTTP version).
    /// - Throws: The scripted failure; a `timedOut` ``TransportFailure``;
    ///   ``SimpleNetworkingError/responseTooLarge(limit:)``; ``SimpleNetworkingError/cancelled`` when cancelled
    ///   before the call or during a delay; or what `transfer` throws.
    public func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        // A caller cancelled before the call sends nothing, and nothing is recorded.
        if transfer.isCancelled { throw .cancelled }
        var request = request
        if let file = request.bodyFile {
            request.body = try await Self.read(file, reportingTo: transfer)
        }
        if let server { return try await serve(request, from: server, options: options, transfer: transfer) }
        let (queued, route) = state.withLock { state -> (Reply?, (@Sendable (HTTPRequest) -> Reply)?) in
            state.requests.append(request)
            if !state.queue.isEmpty { return (state.queue.removeFirst(), nil) }
            return (nil, state.route)
        }
        // The route runs outside the lock, so it may read `requests` or call `enqueue`.
        let reply = queued ?? route?(request) ?? .status(404)
        var clock = WireClock(timeout: options.timeout, transfer: transfer)
        try await clock.wait(reply.delay)
        if transfer.isCancelled { throw .cancelled }
        let response = try reply.result.get()
        let head = SimpleResponse(
            statusCode: response.statusCode, headers: response.headers, url: request.url,
            httpVersion: response.httpVersion)
        try transfer.receive(head: head)
        var body = BodyPieces(limit: options.maximumResponseBodySize)
        try await body.deliver(response.body, to: transfer)
        return head
    }

    /// The bytes of `file`, read in pieces, with the upload's progress after each.
    private static func read(_ file: URL, reportingTo transfer: HTTPTransfer) async throws(SimpleNetworkingError)
        -> Data
    {
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            throw .invalidRequest(reason: "the body file \(file.lastPathComponent) cannot be read")
        }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        var body = Data()
        while true {
            if transfer.isCancelled { throw .cancelled }
            let piece: Data
            do {
                // `nil` at the end of the file.
                guard let read = try handle.read(upToCount: pieceSize), !read.isEmpty else { break }
                piece = read
            } catch {
                throw .invalidRequest(reason: "the body file \(file.lastPathComponent) cannot be read")
            }
            body.append(piece)
            transfer.didSend(Int64(body.count), of: size)
            await Task.yield()
        }
        return body
    }
}

/// Hands a body to a transfer in pieces of ``MockTransport/pieceSize``, counting them against the size limit.
struct BodyPieces {
    let limit: Int
    private(set) var delivered = 0

    init(limit: Int) {
        self.limit = limit
    }

    mutating func deliver(_ body: Data, to transfer: HTTPTransfer) async throws(SimpleNetworkingError) {
        var start = body.startIndex
        while start < body.endIndex {
            if transfer.isCancelled { throw .cancelled }
            let end = body.index(start, offsetBy: MockTransport.pieceSize, limitedBy: body.endIndex) ?? body.endIndex
            guard end - start <= limit - delivered else { throw .responseTooLarge(limit: limit) }
            delivered += end - start
            try await transfer.deliver(body.subdata(in: start..<end))
            start = end
        }
    }
}
