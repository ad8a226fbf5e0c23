import Foundation

extension SimpleRequest {
    /// The request's response as a stream of server-sent events, read as they arrive.
    ///
    /// ```swift
    /// for try await event in api.get("/feed").events() {
    ///     print(event.event, event.data)
    /// }
    /// ```
    ///
    /// The request runs when the iteration starts, on the client it is bound to. Each connection goes through
    /// ``SimpleNetworking/execute(request:)``, the status handlers, redirects, the retry policy and
    /// re-authentication like any request; it asks for `text/event-stream` unless the request sets `Accept`. Its
    /// body is read as the HTML standard's event-stream interpretation says, bounded by
    /// ``EventStreamOptions/maximumEventSize``, and is not bounded by the attempt timeout: the idle timeout
    /// (``EventStreamOptions/idleTimeout``) ends a silent connection instead.
    ///
    /// When the connection ends (the body ends, the connection drops, the idle timeout passes) a stream that
    /// reconnects (``EventStreamOptions/reconnects``: idempotent methods by default) waits the server's latest
    /// `retry` time, or ``EventStreamOptions/reconnectionTime``, and connects again with `Last-Event-ID`, as a
    /// browser's `EventSource` does; connections that end soon after opening, one after another, wait longer each
    /// time, with jitter, up to a cap (``EventStreamOptions/backoff``). The waits come from the client's clock and
    /// random source. A `Last-Event-ID` header the request sets goes with the first connection, so a stream resumes
    /// where an earlier one stopped. A connection that fails before its
    /// response begins is retried as the retry policy says (``RetryPolicy/backoff`` with jitter from the client's
    /// random source, ``RetryPolicy/maximumAttempts``, the deadline of ``deadline(_:)``); when the policy gives up,
    /// the sequence throws the failure. A stream that does not reconnect ends when its body ends.
    ///
    /// A 204 No Content, the server's way to say it has no more events, ends the stream normally: the sequence
    /// ends and does not reconnect. It throws the error of a non-2xx response
    /// (``SimpleNetworkingError/unacceptableStatus(_:)``), ``SimpleNetworkingError/notAnEventStream(_:)`` for
    /// another 2xx response that is not `text/event-stream`, ``SimpleNetworkingError/eventTooLarge(limit:)``,
    /// ``SimpleNetworkingError/eventStreamIdle(seconds:)`` when a stream that does not reconnect goes silent, and
    /// the failure of the last connection when it gives up. Up to ``EventStreamOptions/bufferSize`` (8 MiB) of the
    /// body waits for a reader that falls behind: a transport that can pause (the AsyncHTTPClient engine) reads no
    /// further ahead; over URLSession, which cannot pause, a reader a whole buffer behind has the connection closed
    /// and the stream reconnects at once from the last event's ID, or throws
    /// ``SimpleNetworkingError/streamBufferFull(limit:)`` when it does not reconnect or its last event ID did not
    /// move on during the connection. Leaving the loop or cancelling
    /// its task closes the connection at once. The request's error, success and completion
    /// handlers do not run while the stream runs: its errors are thrown.
    /// - Returns: The events, in order.
    public func events() -> EventStream {
        EventStream(request: self)
    }

    /// The request's response as a stream of server-sent events whose data is JSON, each decoded as `type` with the
    /// client's decoder (``SimpleNetworking/Configuration/decoder``); see ``events()``.
    ///
    /// ```swift
    /// let tokens = api.post("/chat").body(json: question).events(decoding: Token.self, until: "[DONE]")
    /// for try await token in tokens {
    ///     print(token.text, terminator: "")
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type of each event's data.
    ///   - sentinel: Data that ends the stream instead of being decoded, such as `"[DONE]"`; the connection is closed
    ///     and the sequence ends. `nil` (the default) for none.
    /// - Returns: The decoded values, in order. An event whose data does not decode throws
    ///   ``SimpleNetworkingError/decodingFailed(type:reason:response:)`` and closes the connection.
    public func events<Value: Decodable>(decoding type: Value.Type, until sentinel: String? = nil)
        -> DecodedEventStream<Value>
    {
        DecodedEventStream(events: DecodedEvents(request: self, sentinel: sentinel))
    }

    /// The request's response as a stream of server-sent events whose data is JSON, each decoded as `type` with the
    /// client's decoder and kept with the event's type and ID; see ``events()``.
    ///
    /// For APIs that tell their payloads apart by the `event` field, where ``events(decoding:until:)``, which yields
    /// the values alone, cannot tell them apart:
    ///
    /// ```swift
    /// for try await event in api.post("/chat").body(json: question).decodedEvents(of: Token.self, until: "[DONE]") {
    ///     switch event.type {
    ///     case "delta": print(event.value.text, terminator: "")
    ///     default: break
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type of each event's data; an enum with a decoding initializer of its own reads payloads of
    ///     several shapes.
    ///   - sentinel: Data that ends the stream instead of being decoded, such as `"[DONE]"`; the connection is closed
    ///     and the sequence ends. `nil` (the default) for none.
    /// - Returns: The decoded events, in order. An event whose data does not decode throws
    ///   ``SimpleNetworkingError/decodingFailed(type:reason:response:)`` and closes the connection.
    public func decodedEvents<Value: Decodable>(of type: Value.Type, until sentinel: String? = nil)
        -> DecodedEvents<Value>
    {
        DecodedEvents(request: self, sentinel: sentinel)
    }

    /// Sets how this request's event stream reconnects and what bounds it, instead of the client's
    /// ``SimpleNetworking/Configuration/eventStreams``: every option, those left out taking their defaults, not the
    /// client's. To change only some of the client's options, edit them with ``eventStream(editing:)``.
    ///
    /// ```swift
    /// let progress = api.post("/jobs").body(json: job).eventStream(EventStreamOptions(reconnects: true)).events()
    /// ```
    /// - Parameter options: The options; they replace any that an earlier call set or edited.
    /// - Returns: This request.
    @discardableResult
    public func eventStream(_ options: EventStreamOptions) -> Self {
        update { state in
            state.eventStreamOptions = options
            state.eventStreamEdits = []
        }
    }

    /// Changes some of the event stream options for this request, starting from the client's
    /// ``SimpleNetworking/Configuration/eventStreams``: what the edit leaves alone stays as the client set it.
    ///
    /// ```swift
    /// // The client's idle timeout and event size limit, without reconnecting.
    /// let feed = api.get("/feed").eventStream(editing: { $0.reconnects = false }).events()
    /// ```
    ///
    /// The edit runs when the stream starts, on the options of the client that runs it (or those an earlier
    /// ``eventStream(_:)`` set), after the edits of earlier calls.
    /// - Parameter edit: Changes a copy of the options.
    /// - Returns: This request.
    @discardableResult
    public func eventStream(editing edit: @escaping @Sendable (inout EventStreamOptions) -> Void) -> Self {
        update { $0.eventStreamEdits.append(edit) }
    }

    /// Adds a handler for each server-sent event of the response: ``execute(on:)`` then runs the request as an
    /// event stream (see ``events()``) until it ends.
    ///
    /// Event handlers run on the handler queue, in order, one event at a time. When the stream ends, the error
    /// handlers run with its error, if it failed, then the completion handlers, once. ``cancel()`` closes the
    /// connection and stops reconnecting; the error handlers then get ``SimpleNetworkingError/cancelled``.
    ///
    /// ```swift
    /// api.get("/notifications")
    ///     .on(event: { event in print(event.data) })
    ///     .on(error: { error in print(error) })
    ///     .execute(on: api)
    /// ```
    /// - Parameter handler: Called with each event.
    /// - Returns: This request.
    @discardableResult
    public func on(event handler: @escaping @Sendable (ServerSentEvent) -> Void) -> Self {
        update { $0.eventHandlers.append(handler) }
    }

    /// Adds a handler for the opening of each connection of the request's event stream: the first and each
    /// reconnection, with the head of its response (status and headers), once it is a `text/event-stream`.
    ///
    /// It runs for every form of the stream (``events()``, ``events(decoding:until:)``,
    /// ``decodedEvents(of:until:)`` and ``on(event:)``), on the handler queue, as soon as the response begins and
    /// before any of the connection's events is delivered. A response that opens no stream (an error status, a 204,
    /// another content type) does not run it.
    ///
    /// ```swift
    /// api.get("/notifications")
    ///     .on(open: { response in print("connected:", response.statusCode) })
    ///     .on(close: { reason in print("disconnected:", reason.map { "\($0)" } ?? "ended") })
    ///     .on(event: { event in print(event.data) })
    ///     .execute(on: api)
    /// ```
    /// - Parameter handler: Called with each connection's response head.
    /// - Returns: This request.
    @discardableResult
    public func on(open handler: @escaping @Sendable (SimpleResponse) -> Void) -> Self {
        update { $0.openHandlers.append(handler) }
    }

    /// Adds a handler for the end of each connection that ``on(open:)`` announced, whether the stream then
    /// reconnects or stops.
    ///
    /// It runs on the handler queue, once per connection, with `nil` when the server ended the body or the reader
    /// ended the stream (a sentinel, leaving the loop), and otherwise with what ended the connection: a dropped
    /// connection (``SimpleNetworkingError/transportFailed(_:attempts:)``), the idle timeout
    /// (``SimpleNetworkingError/eventStreamIdle(seconds:)``), an event too large,
    /// ``SimpleNetworkingError/cancelled``. The stream's own end is the end of the loop, or the completion handlers
    /// of ``on(event:)``.
    /// - Parameter handler: Called when a connection ends, with what ended it.
    /// - Returns: This request.
    @discardableResult
    public func on(close handler: @escaping @Sendable (SimpleNetworkingError?) -> Void) -> Self {
        update { $0.closeHandlers.append(handler) }
    }

    /// Runs the request as an event stream for its event handlers, unless one is running already.
    func startEventHandlers(on client: SimpleNetworking) {
        execution.withLock { slot in
            guard slot.eventStreamTask == nil, slot.live == nil else { return }
            slot.client = client
            slot.eventStreamTask = Task { [self] in await runEventHandlers(on: client) }
        }
    }

    private func runEventHandlers(on client: SimpleNetworking) async {
        let (handlers, queue) = state.withLock {
            ($0.eventHandlers, $0.handlers.queue ?? client.configuration.handlerQueue)
        }
        var failure: SimpleNetworkingError?
        do throws(SimpleNetworkingError) {
            let session = EventStreamSession(request: self)
            while let event = try await session.next() {
                await queue.run {
                    for handler in handlers { handler(event) }
                }
            }
        } catch {
            failure = error
        }
        execution.withLock { $0.eventStreamTask = nil }
        let (errorHandlers, completions) = state.withLock { state in
            return (state.handlers.errorHandlers, state.handlers.completionHandlers)
        }
        await queue.run { [failure] in
            if let failure {
                for handler in errorHandlers { handler(failure, failure.response) }
            }
            for completion in completions { completion() }
        }
    }
}
