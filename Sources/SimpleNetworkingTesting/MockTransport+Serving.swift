import Foundation
import SimpleNetworking

extension MockTransport {
    /// Answers `request` from `server` in memory, playing the response's faults as a transport would see them: the
    /// body goes to `transfer` in pieces, a repeated body copy by copy (so an endless one never ends on its own).
    func serve(_ request: HTTPRequest, from server: MockServer, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        let url = request.url
        let host = url.host?.lowercased()
        guard host == "127.0.0.1" || host == "localhost", url.port == server.port,
            let (_, response) = server.respond(to: head(of: request), body: request.body ?? Data())
        else { throw .transportFailed(TransportFailure(.cannotConnect, detail: "nothing serves \(url.host ?? "")")) }
        var clock = WireClock(timeout: options.timeout, transfer: transfer)
        var copies = 1
        var cut: Int?
        var drip: (bytes: Int, interval: TimeInterval)?
        for fault in response.faults {
            switch fault {
            case .delayHeaders(let seconds):
                try await clock.wait(seconds)
            case .closeWithoutResponse:
                throw .transportFailed(TransportFailure(.badServerResponse, detail: "the server closed the connection"))
            case .rawResponse:
                // Raw bytes stand for responses that are not valid HTTP; no in-memory parse is attempted.
                throw .transportFailed(TransportFailure(.badServerResponse, detail: "the server sent raw bytes"))
            case .repeatBody(let count): copies = max(0, count)
            case .dropAfterBodyBytes(let count): cut = count
            case .drip(let bytes, let interval): drip = (max(1, bytes), interval)
            case .delayBody, .dropBeforeBody: break
            }
        }
        let noBody = request.method == .head || response.status == 204 || response.status == 304
        var headers = HTTPHeaders()
        for field in response.headers { headers.add(name: field.name, value: field.value) }
        let head = SimpleResponse(statusCode: response.status, headers: headers, url: url)
        try transfer.receive(head: head)
        guard !noBody, !response.body.isEmpty, copies > 0 else { return head }
        if response.faults.contains(.dropBeforeBody) { throw .transportFailed(TransportFailure(.connectionLost)) }
        for case .delayBody(let seconds) in response.faults { try await clock.wait(seconds) }
        var pieces = BodyPieces(limit: options.maximumResponseBodySize)
        for _ in 0..<copies {
            var copy = response.body
            if let left = cut.map({ $0 - pieces.delivered }), left < copy.count {
                try await pieces.deliver(copy.prefix(max(0, left)), to: transfer)
                throw .transportFailed(TransportFailure(.connectionLost))
            }
            if let drip {
                while !copy.isEmpty {
                    try await pieces.deliver(copy.prefix(drip.bytes), to: transfer)
                    copy = copy.dropFirst(drip.bytes)
                    try await clock.wait(drip.interval)
                }
            } else {
                try await pieces.deliver(copy, to: transfer)
            }
        }
        return head
    }

    /// The request as the server would have parsed it off the wire.
    private func head(of request: HTTPRequest) -> MockServerRequestHead {
        let url = request.url
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? url.path
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var headers = [(name: "Host", value: "\(url.host ?? ""):\(url.port ?? 80)")]
        headers += request.headers.fields.map { (name: $0.name, value: $0.value) }
        if let body = request.body, !body.isEmpty { headers.append((name: "Content-Length", value: "\(body.count)")) }
        return MockServerRequestHead(
            method: request.method.rawValue, target: target, version: "HTTP/1.1", headers: headers)
    }
}

/// The time left of one send's timeout, spent by the waits a reply or a fault asks for.
struct WireClock {
    private var left: TimeInterval
    /// Cancelling it (or the calling task) ends a wait with ``SimpleNetworkingError/cancelled``.
    private let transfer: HTTPTransfer

    init(timeout: TimeInterval, transfer: HTTPTransfer) {
        left = timeout
        self.transfer = transfer
    }

    /// Waits `seconds`, or until the timeout is spent: then the send fails as timed out.
    mutating func wait(_ seconds: TimeInterval) async throws(SimpleNetworkingError) {
        guard seconds > 0 else { return }
        let waited = min(seconds, max(0, left))
        // The sleep has a task of its own, so that a cancelled transfer can end it without cancelling the caller.
        let sleep = Task { try await Task.sleep(nanoseconds: UInt64(waited * 1_000_000_000)) }
        let slept = await transfer.withCancellationHandler {
            (try? await sleep.value) != nil
        } onCancel: {
            sleep.cancel()
        }
        guard slept else { throw .cancelled }
        left -= waited
        if waited < seconds { throw .transportFailed(TransportFailure(.timedOut)) }
    }
}
