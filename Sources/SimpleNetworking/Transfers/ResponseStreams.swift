import Foundation

extension SimpleRequest {
    /// The default buffer of a response stream: 8 MiB.
    public static let defaultStreamBufferSize = 8 * 1024 * 1024

    /// The body of the request's 2xx response as pieces of `Data`, as they arrive.
    ///
    /// The request runs when the iteration starts, on the client it is bound to, through the handlers, redirects and
    /// re-authentication as usual; the body of a non-2xx response goes to the error handlers, and the sequence
    /// throws their error. The size limit is off unless ``maximumResponseBodySize(_:)`` sets one. Stopping the
    /// iteration early (leaving the loop, cancelling its task) cancels the request. Once some of the body has
    /// arrived, the retry policy no longer retries: a retry would send its start again (so would a ``retry()`` from a
    /// handler).
    ///
    /// A transport that can pause (the AsyncHTTPClient engine) waits while the buffer is full. URLSession on Linux
    /// cannot pause a transfer, so over it a reader that falls more than `bufferSize` bytes behind the network stops
    /// the transfer with ``SimpleNetworkingError/streamBufferFull(limit:)``.
    /// - Parameter bufferSize: The most bytes held for a slow reader. Default: ``defaultStreamBufferSize`` (8 MiB).
    /// - Returns: The pieces of the body, in order.
    public func chunks(bufferSize: Int = defaultStreamBufferSize) -> ResponseChunks {
        ResponseChunks(request: self, bufferSize: max(1, bufferSize))
    }

    /// The body of the request's 2xx response, byte by byte, as it arrives; see ``chunks(bufferSize:)``.
    /// - Parameter bufferSize: The most bytes held for a slow reader. Default: ``defaultStreamBufferSize`` (8 MiB).
    /// - Returns: The bytes of the body, in order.
    public func bytes(bufferSize: Int = defaultStreamBufferSize) -> ResponseBytes {
        ResponseBytes(chunks: chunks(bufferSize: bufferSize))
    }

    /// The body of the request's 2xx response as lines of UTF-8 text, as they arrive, for newline-delimited JSON;
    /// see ``chunks(bufferSize:)``. For server-sent events, ``events()`` parses the events and reconnects.
    ///
    /// Lines end at LF; a CR before it is dropped, and so is the LF. A last line without a line break is returned
    /// too; invalid UTF-8 is replaced with U+FFFD.
    ///
    /// ```swift
    /// for try await line in api.get("/events").lines() {
    ///     print(line)
    /// }
    /// ```
    /// - Parameter bufferSize: The most bytes held for a slow reader. Default: ``defaultStreamBufferSize`` (8 MiB).
    /// - Returns: The lines of the body, in order, without their line breaks.
    public func lines(bufferSize: Int = defaultStreamBufferSize) -> ResponseLines {
        ResponseLines(chunks: chunks(bufferSize: bufferSize))
    }
}

/// The body of a response as pieces of `Data`, as they arrive: ``SimpleRequest/chunks(bufferSize:)``.
public struct ResponseChunks: AsyncSequence, Sendable {
    /// A piece of the body.
    public typealias Element = Data
    /// What iterating can throw.
    public typealias Failure = SimpleNetworkingError

    let request: SimpleRequest
    let bufferSize: Int

    /// Starts nothing yet: the request runs when the first piece is asked for.
    /// - Returns: An iterator over the pieces of the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: StreamReader(request: request, bufferSize: bufferSize))
    }

    /// Reads the pieces of the body.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What iterating can throw.
        public typealias Failure = SimpleNetworkingError

        let reader: StreamReader

        /// The next piece of the body, waiting for it to arrive.
        /// - Returns: The piece, or `nil` once the whole body has been read.
        /// - Throws: ``SimpleNetworkingError``, as ``SimpleRequest/response(on:)`` describes, and
        ///   ``SimpleNetworkingError/streamBufferFull(limit:)``.
        public mutating func next() async throws(SimpleNetworkingError) -> Data? {
            try await reader.next()
        }
    }
}

/// The body of a response byte by byte, as it arrives: ``SimpleRequest/bytes(bufferSize:)``.
public struct ResponseBytes: AsyncSequence, Sendable {
    /// A byte of the body.
    public typealias Element = UInt8
    /// What iterating can throw.
    public typealias Failure = SimpleNetworkingError

    let chunks: ResponseChunks

    /// Starts nothing yet: the request runs when the first byte is asked for.
    /// - Returns: An iterator over the bytes of the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: chunks.makeAsyncIterator())
    }

    /// Reads the bytes of the body.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What iterating can throw.
        public typealias Failure = SimpleNetworkingError

        @usableFromInline var chunks: ResponseChunks.AsyncIterator
        @usableFromInline var current = Data()
        @usableFromInline var index = 0

        init(chunks: ResponseChunks.AsyncIterator) {
            self.chunks = chunks
        }

        /// The next byte of the body, waiting for it to arrive.
        ///
        /// Inlinable, so that a loop over the bytes reads the piece at hand without a call per byte; only the next
        /// piece is awaited.
        /// - Returns: The byte, or `nil` once the whole body has been read.
        /// - Throws: ``SimpleNetworkingError``, as ``ResponseChunks/AsyncIterator/next()`` describes.
        @inlinable
        public mutating func next() async throws(SimpleNetworkingError) -> UInt8? {
            if index < current.count {
                defer { index += 1 }
                return current[current.startIndex + index]
            }
            return try await nextPiece()
        }

        /// Waits for the next non-empty piece and returns its first byte.
        @usableFromInline
        mutating func nextPiece() async throws(SimpleNetworkingError) -> UInt8? {
            repeat {
                guard let chunk = try await chunks.next() else { return nil }
                current = chunk
                index = 0
            } while current.isEmpty
            index = 1
            return current[current.startIndex]
        }
    }
}

/// The body of a response as lines of text, as they arrive: ``SimpleRequest/lines(bufferSize:)``.
public struct ResponseLines: AsyncSequence, Sendable {
    /// A line, without its line break.
    public typealias Element = String
    /// What iterating can throw.
    public typealias Failure = SimpleNetworkingError

    let chunks: ResponseChunks

    /// Starts nothing yet: the request runs when the first line is asked for.
    /// - Returns: An iterator over the lines of the body.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(chunks: chunks.makeAsyncIterator())
    }

    /// Reads the lines of the body.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// What iterating can throw.
        public typealias Failure = SimpleNetworkingError

        var chunks: ResponseChunks.AsyncIterator
        /// Bytes read but not yet returned as a line.
        var pending: [UInt8] = []
        /// Where to look for the next LF in `pending`.
        var searchFrom = 0
        var ended = false

        /// The next line of the body, waiting for it to arrive.
        /// - Returns: The line without its line break, or `nil` once the whole body has been read.
        /// - Throws: ``SimpleNetworkingError``, as ``ResponseChunks/AsyncIterator/next()`` describes.
        public mutating func next() async throws(SimpleNetworkingError) -> String? {
            while true {
                if let newline = pending[searchFrom...].firstIndex(of: 0x0A) {
                    var line = pending[..<newline]
                    if line.last == 0x0D { line = line.dropLast() }
                    let text = String(decoding: line, as: UTF8.self)
                    pending.removeSubrange(...newline)
                    searchFrom = 0
                    return text
                }
                searchFrom = pending.count
                if ended {
                    guard !pending.isEmpty else { return nil }
                    defer {
                        pending = []
                        searchFrom = 0
                    }
                    return String(decoding: pending, as: UTF8.self)
                }
                if let chunk = try await chunks.next() {
                    pending.append(contentsOf: chunk)
                } else {
                    ended = true
                }
            }
        }
    }
}

/// Runs a request for a response stream, once, and cancels it when the reader goes away before the end.
final class StreamReader: Sendable {
    private struct State {
        var stream: ResponseStream?
        var ended = false
    }

    private let request: SimpleRequest
    private let bufferSize: Int
    private let checkHead: ResponseStream.HeadCheck?
    private let wakesOnHead: Bool
    private let state = Locked(State())

    /// - Parameters:
    ///   - checkHead: Sees the head of the 2xx response before its body, and may refuse it (an event stream
    ///     refuses a body that is not `text/event-stream`).
    ///   - wakesOnHead: Whether ``next()`` returns an empty piece once a head passed `checkHead`, before the body, so
    ///     that the reader learns of the response without waiting for its first bytes (an event stream's opening).
    init(
        request: SimpleRequest, bufferSize: Int, checkHead: ResponseStream.HeadCheck? = nil, wakesOnHead: Bool = false
    ) {
        self.request = request
        self.bufferSize = bufferSize
        self.checkHead = checkHead
        self.wakesOnHead = wakesOnHead
    }

    /// The head of the 2xx response whose body the stream reads, once it has arrived.
    var head: SimpleResponse? { state.withLock { $0.stream }?.head }

    func next() async throws(SimpleNetworkingError) -> Data? {
        let stream = try start()
        let result = await withTaskCancellationHandler {
            await stream.next()
        } onCancel: { [request] in
            request.cancelExecution()
        }
        if case .success(nil) = result { state.withLock { $0.ended = true } }
        if case .failure = result { state.withLock { $0.ended = true } }
        return try result.get()
    }

    /// The stream of the execution, started on the first call.
    private func start() throws(SimpleNetworkingError) -> ResponseStream {
        let (stream, isNew) = state.withLock { state -> (ResponseStream, Bool) in
            if let stream = state.stream { return (stream, false) }
            let stream = ResponseStream(capacity: bufferSize, checkHead: checkHead, wakesOnHead: wakesOnHead)
            state.stream = stream
            return (stream, true)
        }
        guard isNew else { return stream }
        guard let client = request.client else {
            stream.finish(
                .failure(.invalidRequest(reason: "the request is not bound to a client; bind it with api.get(...)")))
            return stream
        }
        request.state.withLock { $0.parts.receiving = .stream(stream) }
        guard let execution = request.start(on: client) else {
            stream.finish(.failure(.requestInProgress))
            return stream
        }
        Task { [request] in
            stream.finish(await execution.value)
            // A later run of the request keeps its body in memory again.
            request.state.withLock { state in
                if case .stream(let current) = state.parts.receiving, current === stream { state.parts.receiving = nil }
            }
        }
        return stream
    }

    deinit {
        let (started, ended) = state.withLock { ($0.stream != nil, $0.ended) }
        if started, !ended { request.cancelExecution() }
    }
}

/// The buffer between a response's body arriving and the reader of its stream: at most `capacity` bytes wait.
final class ResponseStream: ResponseDestination {
    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        var end: Result<Void, SimpleNetworkingError>?
        var reader: CheckedContinuation<Result<Data?, SimpleNetworkingError>, Never>?
        /// A transport that can pause, waiting for room in the buffer.
        var writer: CheckedContinuation<Void, Never>?
        /// Some of the body has been accepted for the reader, handed over or buffered.
        var started = false
        var head: SimpleResponse?
    }

    /// Sees the head of a 2xx response before its body goes to the stream; what it throws ends the attempt.
    typealias HeadCheck = @Sendable (SimpleResponse) throws(SimpleNetworkingError) -> Void

    private let capacity: Int
    private let checkHead: HeadCheck?
    private let wakesOnHead: Bool
    private let state = Locked(State())

    /// - Parameters:
    ///   - capacity: The most bytes held for a slow reader.
    ///   - checkHead: Sees the head of a 2xx response before its body.
    ///   - wakesOnHead: Whether the reader gets an empty piece once a head passed `checkHead`, before the body.
    init(capacity: Int, checkHead: HeadCheck? = nil, wakesOnHead: Bool = false) {
        self.capacity = capacity
        self.checkHead = checkHead
        self.wakesOnHead = wakesOnHead
    }

    /// The head of the latest 2xx response whose body comes to this stream.
    var head: SimpleResponse? { state.withLock { $0.head } }

    /// Whether some of the body has been accepted for the reader: a retry would send its start again.
    var hasStarted: Bool { state.withLock { $0.started } }

    func begin(_ head: SimpleResponse) throws(SimpleNetworkingError) {
        state.withLock { $0.head = head }
        try checkHead?(head)
        guard wakesOnHead else { return }
        // An empty piece: it starts nothing (a retry may still send the request again) and takes no room.
        let reader = state.withLock { state -> CheckedContinuation<Result<Data?, SimpleNetworkingError>, Never>? in
            guard state.end == nil else { return nil }
            if let reader = state.reader.take() { return reader }
            state.chunks.append(Data())
            return nil
        }
        reader?.resume(returning: .success(Data()))
    }

    func write(_ bytes: Data) throws(SimpleNetworkingError) {
        guard !bytes.isEmpty else { return }
        try put(bytes, over: false)
    }

    /// A transport that can pause waits for the reader: see ``writeWhenReady(_:)``.
    var isPaced: Bool { true }

    /// Takes `bytes` at once when the buffer has room for them (or a reader waits), without a wait; `false`, taking
    /// nothing, when it is full: the transport then hands them to ``writeWhenReady(_:)``. A transport that can pause
    /// thus holds nothing back while the reader keeps up (AsyncHTTPClient drops the pieces it holds back when the
    /// connection then fails, and the events before a dropped connection must reach the reader).
    func writeIfReady(_ bytes: Data) throws(SimpleNetworkingError) -> Bool {
        guard !bytes.isEmpty else { return true }
        let (full, ended) = state.withLock { (Self.isFull($0, for: bytes.count, capacity: capacity), $0.end != nil) }
        if ended { throw .cancelled }
        if full { return false }
        try put(bytes, over: true)
        return true
    }

    /// Waits while the buffer is full: a transport that can pause reads the network no faster than the reader. A
    /// piece larger than the whole buffer goes in alone, once the buffer is empty.
    func writeWhenReady(_ bytes: Data) async throws(SimpleNetworkingError) {
        guard !bytes.isEmpty else { return }
        while isFull(for: bytes.count) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard Self.isFull(state, for: bytes.count, capacity: capacity) else { return false }
                    state.writer = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        }
        guard state.withLock({ $0.end == nil }) else { throw .cancelled }
        try put(bytes, over: true)
    }

    private func isFull(for count: Int) -> Bool {
        state.withLock { Self.isFull($0, for: count, capacity: capacity) }
    }

    /// Whether a piece of `count` bytes must wait: the stream runs, no reader waits, and the buffer has no room.
    private static func isFull(_ state: State, for count: Int, capacity: Int) -> Bool {
        state.end == nil && state.reader == nil && state.buffered > 0 && count > capacity - state.buffered
    }

    /// Hands `bytes` to a waiting reader or buffers them; `over` lets one piece pass the capacity of an empty buffer.
    private func put(_ bytes: Data, over: Bool) throws(SimpleNetworkingError) {
        let outcome = state.withLock {
            state -> Result<CheckedContinuation<Result<Data?, SimpleNetworkingError>, Never>?, SimpleNetworkingError> in
            guard state.end == nil else { return .success(nil) }
            state.started = true
            if let reader = state.reader {
                state.reader = nil
                return .success(reader)
            }
            let fits = bytes.count <= capacity - state.buffered || (over && state.buffered == 0)
            guard fits else { return .failure(.streamBufferFull(limit: capacity)) }
            state.chunks.append(bytes)
            state.buffered += bytes.count
            return .success(nil)
        }
        let reader = try outcome.get()
        reader?.resume(returning: .success(bytes))
    }

    /// Ends the stream with the execution's outcome, once.
    func finish(_ outcome: SimpleRequest.Outcome) {
        let (reader, writer) = state.withLock { state in
            guard state.end == nil else {
                return (CheckedContinuation<Result<Data?, SimpleNetworkingError>, Never>?.none, state.writer.take())
            }
            state.end = outcome.map { _ in () }
            defer { state.reader = nil }
            return (state.reader, state.writer.take())
        }
        writer?.resume()
        reader?.resume(returning: outcome.map { _ in nil })
    }

    /// The next piece of the body, `nil` at its end, or the error the execution ended with.
    func next() async -> Result<Data?, SimpleNetworkingError> {
        await withCheckedContinuation { continuation in
            let (now, writer) = state.withLock {
                state -> (Result<Data?, SimpleNetworkingError>?, CheckedContinuation<Void, Never>?) in
                if !state.chunks.isEmpty {
                    let chunk = state.chunks.removeFirst()
                    state.buffered -= chunk.count
                    return (.success(chunk), state.writer.take())
                }
                if let end = state.end { return (end.map { nil }, nil) }
                state.reader = continuation
                return (nil, state.writer.take())
            }
            writer?.resume()
            if let now { continuation.resume(returning: now) }
        }
    }
}
