import Foundation

/// One step of an event stream that the mock server writes: ``MockResponse/eventStream(_:ending:headers:)``.
///
/// Each step goes out as a chunk of its own, as soon as the step before it was written.
public enum MockEvent: Sendable, Equatable {
    /// An event: `id:` and `event:` lines when given, a `data:` line for each line of `data`, then an empty line.
    case event(data: String, id: String? = nil, type: String? = nil)
    /// A `retry:` field asking the client to wait this many milliseconds before reconnecting, then an empty line.
    case retry(milliseconds: Int)
    /// A comment line (`: text`), which a client ignores: the usual keep-alive.
    case comment(String)
    /// Writes nothing for this many seconds.
    case pause(TimeInterval)
    /// These characters exactly, for malformed or unusual streams (a CR line end, a field without a colon).
    case raw(String)

    /// The step's bytes on the wire, or `nil` for a pause.
    var text: String? {
        switch self {
        case .event(let data, let id, let type):
            var text = ""
            if let id { text += "id: \(id)\n" }
            if let type { text += "event: \(type)\n" }
            for line in data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
            return text + "\n"
        case .retry(let milliseconds): return "retry: \(milliseconds)\n\n"
        case .comment(let comment): return ": \(comment)\n"
        case .pause: return nil
        case .raw(let raw): return raw
        }
    }
}

/// What the mock server does after the last step of an event stream.
public enum MockEventStreamEnd: Sendable, Equatable {
    /// Ends the body properly (the last chunk): the server ended the stream; the connection may carry another
    /// request.
    case close
    /// Closes the connection without ending the body: the connection dropped.
    case drop
    /// Writes nothing more and keeps the connection open until the client closes it (or the server shuts down), so
    /// that a test can see the client close it (``MockServer/openConnectionCount``).
    case hold
}

extension MockResponse {
    /// A `text/event-stream` response, written step by step with `Transfer-Encoding: chunked`: events, `retry`
    /// fields, comments and pauses between them, then the end the test asks for.
    ///
    /// ```swift
    /// server.route { request in
    ///     // A reconnection carries the ID of the last event the client saw.
    ///     let after = Int(request.lastEventID ?? "") ?? 0
    ///     return .eventStream(
    ///         [.retry(milliseconds: 10), .event(data: "tick \(after + 1)", id: "\(after + 1)"), .pause(0.05)],
    ///         ending: .drop)
    /// }
    /// ```
    /// - Parameters:
    ///   - steps: What to write, in order.
    ///   - end: What to do after the last step. Default: ``MockEventStreamEnd/close``.
    ///   - headers: Extra header fields, sent after `Content-Type` and `Cache-Control`.
    /// - Returns: The response.
    public static func eventStream(
        _ steps: [MockEvent], ending end: MockEventStreamEnd = .close, headers: [(name: String, value: String)] = []
    ) -> MockResponse {
        var response = MockResponse(
            status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")] + headers,
            chunked: true)
        response.eventStream = (steps, end)
        return response
    }
}

extension RecordedRequest {
    /// The request's `Last-Event-ID` header: the ID of the last event a reconnecting event stream saw; `nil` on a
    /// first connection.
    public var lastEventID: String? { header("Last-Event-ID") }
}

extension MockServerCore {
    /// Writes an event stream's steps as chunks, then ends it as `end` says.
    /// - Returns: `false` if the connection must be closed.
    func writeEvents(_ steps: [MockEvent], end: MockEventStreamEnd, to fd: Int32) -> Bool {
        for step in steps {
            if case .pause(let seconds) = step {
                guard pause(seconds) else { return false }
                continue
            }
            guard let text = step.text, !text.isEmpty else { continue }
            let bytes = Array(text.utf8)
            let chunk = Array(String(bytes.count, radix: 16).utf8) + [0x0D, 0x0A] + bytes + [0x0D, 0x0A]
            guard MockServerSocket.sendAll(fd, chunk) else { return false }
        }
        switch end {
        case .close:
            return MockServerSocket.sendAll(fd, Array("0\r\n\r\n".utf8))
        case .drop:
            return false
        case .hold:
            while !isShutdown {
                switch MockServerSocket.waitReadable(fd, timeoutMilliseconds: 10) {
                case .timedOut: continue
                case .failed: return false
                case .ready:
                    // The client closed the connection (or sent something it should not have): either way, done.
                    guard let bytes = MockServerSocket.receive(fd, capacity: 4096), !bytes.isEmpty else { return false }
                }
            }
            return false
        }
    }
}
