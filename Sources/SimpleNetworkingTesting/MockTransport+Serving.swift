import Foundation
import SimpleNetworking

extension MockTransport {
    /// Answers `request` from `server` in memory, playing the response's faults as a transport would see them.
    func serve(_ request: HTTPRequest, from server: MockServer, options: TransportOptions)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        let url = request.url
        let host = url.host?.lowercased()
        guard host == "127.0.0.1" || host == "localhost", url.port == server.port,
            let (_, response) = server.respond(to: head(of: request), body: request.body ?? Data())
        else { throw .transportFailed(TransportFailure(.cannotConnect, detail: "nothing serves \(url.host ?? "")")) }
        var clock = WireClock(timeout: options.timeout)
        var body = response.body
        for fault in response.faults {
            switch fault {
            case .delayHeaders(let seconds), .delayBody(let seconds):
                try await clock.wait(seconds)
            case .drip(let bytes, let interval):
                try await clock.wait(Double((body.count + max(1, bytes) - 1) / max(1, bytes)) * interval)
            case .dropBeforeBody where !body.isEmpty:
                throw .transportFailed(TransportFailure(.connectionLost))
            case .dropAfterBodyBytes(let count) where count < body.count:
                throw .transportFailed(TransportFailure(.connectionLost))
            case .closeWithoutResponse:
                throw .transportFailed(TransportFailure(.badServerResponse, detail: "the server closed the connection"))
            case .rawResponse:
                // Raw bytes stand for responses that are not valid HTTP; no in-memory parse is attempted.
                throw .transportFailed(TransportFailure(.badServerResponse, detail: "the server sent raw bytes"))
            case .repeatBody(let copies):
                // Past the limit only the size matters: an endless body is refused without being built.
                let single = max(1, body.count)
                guard copies <= options.maximumResponseBodySize / single else {
                    throw .responseTooLarge(limit: options.maximumResponseBodySize)
                }
                body = Data((0..<max(0, copies)).flatMap { _ in body })
            case .dropBeforeBody, .dropAfterBodyBytes:
                break
            }
        }
        if request.method == .head || response.status == 204 || response.status == 304 { body = Data() }
        guard body.count <= options.maximumResponseBodySize else {
            throw .responseTooLarge(limit: options.maximumResponseBodySize)
        }
        var headers = HTTPHeaders()
        for field in response.headers { headers.add(name: field.name, value: field.value) }
        return SimpleResponse(statusCode: response.status, headers: headers, body: body, url: url)
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

    init(timeout: TimeInterval) {
        left = timeout
    }

    /// Waits `seconds`, or until the timeout is spent: then the send fails as timed out.
    mutating func wait(_ seconds: TimeInterval) async throws(SimpleNetworkingError) {
        guard seconds > 0 else { return }
        let waited = min(seconds, max(0, left))
        do {
            try await Task.sleep(nanoseconds: UInt64(waited * 1_000_000_000))
        } catch {
            throw .cancelled
        }
        left -= waited
        if waited < seconds { throw .transportFailed(TransportFailure(.timedOut)) }
    }
}
