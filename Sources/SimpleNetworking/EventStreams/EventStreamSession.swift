import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One event source: the connections of an event stream, one after another, and the parser their bodies go through.
///
/// Each connection is one execution of the request (``SimpleRequest/chunks(bufferSize:)``'s machinery): it goes
/// through `execute(request:)`, its handlers, redirects, retry policy and re-authentication: the policy retries a
/// connection that fails before its response begins, with its backoff, limits and the deadline. After a connection
/// whose event stream began ends, the session waits the server's `retry` time, longer after short connections in a
/// row (``ReconnectionBackoff``), and connects again with the parser's last event ID as `Last-Event-ID`; the first
/// connection sends the `Last-Event-ID` the caller set, if any. The body is read with backpressure where the
/// transport can pause; where it cannot, a reader that falls a whole buffer behind has the connection closed, and the
/// stream reconnects at once from its last event ID if that moved on during the connection. The request's error,
/// success and completion handlers are set aside while it runs, so they do not run for each connection; they are put
/// back when the stream ends.
///
/// Owned by one iterator, used from one task at a time.
final class EventStreamSession {
    private let request: SimpleRequest
    private var client: SimpleNetworking?
    private var options = EventStreamOptions()
    private var reconnects = false
    private var parser = EventStreamParser(maximumEventSize: EventStreamOptions.defaultMaximumEventSize)
    /// Events parsed but not yet returned, from `nextIndex` on; the array keeps its capacity.
    private var pending: [ServerSentEvent] = []
    private var nextIndex = 0
    /// The failure to throw once the events parsed before it have been returned.
    private var failure: SimpleNetworkingError?
    private var reader: StreamReader?
    private var watchdog: EventStreamWatchdog?
    private var started = false
    private var ended = false
    /// The wait before the next connection, once one is due.
    private var wait: TimeInterval?
    /// The short connections in a row (see ``ReconnectionBackoff``); 0 after a healthy one.
    private var shortConnections = 0
    /// When the current connection's event stream began, on the client's clock.
    private var opened = Locked<Date?>(nil)
    /// The last event ID when the current connection began: a connection cut for a slow reader resumes only if the
    /// ID moved on since.
    private var idAtConnect = ""
    /// Whether the open handlers ran for the current connection.
    private var openAnnounced = false
    /// Whether the close handlers ran for the current connection.
    private var closeAnnounced = false
    private var setAside: SetAsideHandlers?

    /// The handlers that would run at the end of each connection's execution.
    struct SetAsideHandlers {
        var error: [SimpleRequest.ErrorHandler]
        var success: [SimpleRequest.SuccessHandler]
        var completion: [SimpleRequest.CompletionHandler]
    }

    init(request: SimpleRequest) {
        self.request = request
    }

    deinit {
        // The reader left the loop: the connection closes with the session.
        if reader != nil { announceClose(nil) }
        watchdog?.stop()
        restoreHandlers()
    }

    /// The head of the current connection's response, once it began.
    var head: SimpleResponse? { reader?.head }

    /// The next event, connecting and reconnecting as needed; `nil` once the stream ended.
    func next() async throws(SimpleNetworkingError) -> ServerSentEvent? {
        while true {
            if nextIndex < pending.count {
                defer { nextIndex += 1 }
                return pending[nextIndex]
            }
            if nextIndex > 0 {
                pending.removeAll(keepingCapacity: true)
                nextIndex = 0
            }
            if let failure {
                self.failure = nil
                close(reason: failure)
                throw failure
            }
            if ended { return nil }
            if reader == nil { try await connect() }
            guard let reader else { continue }
            let result: Result<Data?, SimpleNetworkingError>
            do throws(SimpleNetworkingError) {
                result = .success(try await reader.next())
            } catch {
                result = .failure(error)
            }
            if !openAnnounced, opened.withLock({ $0 }) != nil, let head = reader.head {
                // The connection's event stream began: announce it, in this task, before any of its events.
                openAnnounced = true
                let (handlers, own) = request.state.withLock { ($0.openHandlers, $0.handlers.queue) }
                if !handlers.isEmpty, let queue = own ?? client?.configuration.handlerQueue {
                    await queue.run { for handler in handlers { handler(head) } }
                }
            }
            switch result {
            case .success(let chunk?):
                watchdog?.touch()
                do throws(SimpleNetworkingError) {
                    try parser.feed(chunk) { pending.append($0) }
                } catch {
                    failure = error
                }
            case .success(nil):
                try connectionEnded(with: nil)
            case .failure(let error):
                try connectionEnded(with: error)
            }
        }
    }

    /// Ends the stream: closes the connection (if one is open) and puts the request's handlers back.
    /// - Parameter reason: What the close handlers of an open connection get; `nil` when the reader ended it.
    func close(reason: SimpleNetworkingError? = nil) {
        if reader != nil { announceClose(reason) }
        ended = true
        watchdog?.stop()
        watchdog = nil
        // Dropping the reader before the end of its body cancels its execution, which closes the connection.
        reader = nil
        restoreHandlers()
    }

    /// Opens the next connection, after the wait that is due.
    private func connect() async throws(SimpleNetworkingError) {
        if !started { try begin() }
        guard let client else { return }
        if let wait {
            self.wait = nil
            do {
                try await client.configuration.clock.sleep(wait)
            } catch {
                close()
                throw .cancelled
            }
        }
        if Task.isCancelled {
            close()
            throw .cancelled
        }
        // An ID that is no valid header value (a control character) is not sent, rather than fail the reconnection:
        // the server then resumes as for a client that has seen no event, as it would for a browser.
        let lastEventID = parser.lastEventID
        if !lastEventID.isEmpty, RequestValidation.firstForbiddenByte(inValue: lastEventID) == nil {
            request.header("Last-Event-ID", lastEventID)
        } else {
            request.header("Last-Event-ID", nil)
        }
        let headTimeout = request.state.withLock { $0.parts.timeout } ?? client.attemptTimeout
        let watchdog = EventStreamWatchdog(
            request: request, headTimeout: headTimeout, idleTimeout: options.idleTimeout)
        self.watchdog = watchdog
        let opened = Locked<Date?>(nil)
        self.opened = opened
        openAnnounced = false
        closeAnnounced = false
        idAtConnect = parser.lastEventID
        let clock = client.configuration.clock
        // A transport that can pause reads no further ahead than the buffer; one that cannot fails the transfer with
        // streamBufferFull when the reader falls that far behind, and the stream reconnects.
        reader = StreamReader(
            request: request, bufferSize: max(1, options.bufferSize),
            checkHead: { head throws(SimpleNetworkingError) in
                watchdog.headArrived()
                try Self.check(head)
                opened.withLock { $0 = clock.now() }
            }, wakesOnHead: true)
        watchdog.start()
    }

    /// Sets the stream up on its first connection.
    private func begin() throws(SimpleNetworkingError) {
        started = true
        guard let client = request.client else {
            close()
            throw .invalidRequest(reason: "the request is not bound to a client; bind it with api.get(...)")
        }
        self.client = client
        let (options, method, handlers, callerID) = request.state.withLock { state in
            let handlers = SetAsideHandlers(
                error: state.handlers.errorHandlers, success: state.handlers.successHandlers,
                completion: state.handlers.completionHandlers)
            state.handlers.errorHandlers = []
            state.handlers.successHandlers = []
            state.handlers.completionHandlers = []
            state.parts.unboundedBody = true
            if state.parts.headers["Accept"] == nil { state.parts.headers["Accept"] = "text/event-stream" }
            var options = state.eventStreamOptions ?? client.configuration.eventStreams
            for edit in state.eventStreamEdits { edit(&options) }
            return (options, state.parts.method, handlers, state.parts.headers["Last-Event-ID"])
        }
        setAside = handlers
        self.options = options
        reconnects = options.reconnects(for: method)
        // The caller's Last-Event-ID resumes a stream an earlier one stopped (after an app restart, say): the parser
        // starts from it, so the first connection sends it, and so does every reconnection until the server sets
        // another ID.
        parser = EventStreamParser(maximumEventSize: options.maximumEventSize, lastEventID: callerID ?? "")
    }

    /// Refuses a 2xx response that is not an event stream, 204 No Content included: the server's way to say it has
    /// no more events, which ``connectionEnded(with:)`` turns into the stream's normal end.
    private static func check(_ head: SimpleResponse) throws(SimpleNetworkingError) {
        guard head.statusCode != 204, isEventStream(head) else { throw .notAnEventStream(head) }
    }

    private static func isEventStream(_ head: SimpleResponse) -> Bool {
        guard let type = head.headers["Content-Type"] else { return false }
        let essence = type.split(separator: ";", maxSplits: 1).first ?? ""
        return essence.trimmingCharacters(in: .whitespaces).lowercased() == "text/event-stream"
    }

    /// A connection ended, with its body complete (`nil`) or `error`: stop, or plan the next connection.
    private func connectionEnded(with error: SimpleNetworkingError?) throws(SimpleNetworkingError) {
        let head = reader?.head
        reader = nil
        let expiry = watchdog?.stop()
        watchdog = nil
        // An event cut short by the end of the connection is dropped, as the standard says; a server that resumes
        // from Last-Event-ID sends it again.
        parser.finish()
        let began = head.map { $0.statusCode != 204 && Self.isEventStream($0) } ?? false
        var failure = error
        if case .cancelled = error {
            switch expiry {
            case .head:
                failure = .transportFailed(TransportFailure(URLError(.timedOut)))
            case .idle:
                failure = .eventStreamIdle(seconds: options.idleTimeout ?? 0)
            case nil:
                announceClose(.cancelled)
                close()
                throw .cancelled
            }
        }
        announceClose(failure)
        if case .notAnEventStream(let response)? = failure, response.statusCode == 204 {
            // The server's "no more events": the stream ends normally and does not reconnect.
            close()
            return
        }
        let dropped: Bool
        var overflowed = false
        switch failure {
        case nil: dropped = true
        case .transportFailed?, .eventStreamIdle?: dropped = true
        case .streamBufferFull?:
            // The reader fell a whole buffer behind on a transport that cannot pause: the buffered events were
            // delivered, and a reconnection resumes after the last of them, if the server gave them an ID that moved
            // on during the connection. Without one, a reconnection would repeat or skip events: the stream stops.
            let lastEventID = parser.lastEventID
            dropped = !lastEventID.isEmpty && lastEventID != idAtConnect
            overflowed = true
        default: dropped = false
        }
        guard reconnects, dropped else {
            if let failure {
                close()
                throw failure
            }
            close()
            return
        }
        // A connection that failed before its event stream began was already retried as the retry policy allows.
        guard began, let client else {
            close()
            throw failure ?? .transportFailed(TransportFailure(URLError(.networkConnectionLost)))
        }
        planWait(overflowed: overflowed, client: client)
    }

    /// Plans the wait before the next connection, after one whose event stream began (``ReconnectionBackoff``).
    private func planWait(overflowed: Bool, client: SimpleNetworking) {
        if overflowed {
            // Cut by the client, not ended by the server, and the stream moved on: catch up at once.
            shortConnections = 0
            wait = nil
            return
        }
        let openFor = opened.withLock { $0 }.map { client.configuration.clock.now().timeIntervalSince($0) } ?? 0
        let healthy = openFor >= options.backoff.healthyConnectionTime
        shortConnections = healthy ? 0 : min(shortConnections + 1, 64)
        let retryTime = parser.reconnectionTime.map { TimeInterval($0) / 1000 } ?? options.reconnectionTime
        // The jitter is drawn only for a wait that grew: the retry time alone draws nothing from the source.
        let random = shortConnections >= 2 ? client.configuration.random.next() : 0
        wait = options.backoff.wait(afterShortConnections: shortConnections, retryTime: retryTime, random: random)
    }

    /// Runs the close handlers once for the current connection, if its event stream began.
    private func announceClose(_ reason: SimpleNetworkingError?) {
        guard openAnnounced, !closeAnnounced else { return }
        closeAnnounced = true
        let (handlers, own) = request.state.withLock { ($0.closeHandlers, $0.handlers.queue) }
        guard !handlers.isEmpty, let queue = own ?? client?.configuration.handlerQueue else { return }
        queue.runSoon { for handler in handlers { handler(reason) } }
    }

    /// Puts the handlers set aside back on the request, once.
    private func restoreHandlers() {
        guard let handlers = setAside.take() else { return }
        request.state.withLock { state in
            state.handlers.errorHandlers = handlers.error + state.handlers.errorHandlers
            state.handlers.successHandlers = handlers.success + state.handlers.successHandlers
            state.handlers.completionHandlers = handlers.completion + state.handlers.completionHandlers
            state.parts.unboundedBody = false
        }
    }
}

extension HandlerQueue {
    /// Runs `job` right here on ``background``, else schedules it: jobs keep their order on a serial queue.
    func runSoon(_ job: @escaping @Sendable () -> Void) {
        if runsHandlersInExecution { job() } else { schedule(job) }
    }
}
