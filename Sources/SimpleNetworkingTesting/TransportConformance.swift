import Foundation
import SimpleNetworking

/// Checks that an ``HTTPTransport`` behaves as the client relies on, against ``MockServer`` over real loopback
/// sockets: every transport, URLSession or another engine, must pass all of it.
///
/// ```swift
/// @Test func conformance() async {
///     let failures = await TransportConformance { _ in MyTransport() }.run()
///     #expect(failures.isEmpty, "\(failures)")
/// }
/// ```
///
/// The factory gets the check's server, for a transport that answers from it without sockets, such as
/// `MockTransport(serving:)`; a network transport ignores it.
///
/// Each check gets a fresh transport and server, and closes both. The checks: a 3xx is returned, not followed; the
/// body size limit stops a large body; the timeout fires; cancelling the calling task stops the request, and a task
/// cancelled before it calls the transport sends nothing (even with an idle connection at hand); failures
/// come in the right ``TransportFailure/Category``; a response whose `Content-Length` fields disagree fails as
/// `badServerResponse` and its connection is closed (RFC 9112, section 6.3), so that no later request is written on it;
/// headers and bodies arrive byte for byte; repeated response header fields stay apart; a response's
/// `Content-Encoding` stays in its head when the transport decodes the body (a download never resumes from decoded
/// bytes: the library's "Large transfers" article); a chunked body followed by
/// trailer fields arrives whole; `send(_:options:transfer:)` gives the transfer the head and the whole body, and sends
/// a body file byte for byte.
///
/// The time bounds are loose and leave out the machine's own delays: how late a task of the kit's, ticking while a
/// check is timed, ran meanwhile is subtracted from the elapsed time, so a loaded machine does not fail a transport
/// and a transport that waits for the server still fails.
///
/// A transport whose ``HTTPTransport/capabilities`` include ``TransportCapabilities/transferCancellation`` is held to
/// it: cancelling the transfer (not the task) of a request the server holds stops it promptly with `cancelled`.
///
/// A transport whose ``HTTPTransport/capabilities`` promise streaming is held to it, so that one that buffers cannot
/// pass: the first bytes of a slow body reach the transfer long before the body ends; a body that declares 5 GiB (and
/// drops after 16 MiB) is streamed and abandoned after 4 MiB, with at most 1 MiB more handed over after the transfer stopped
/// it; stopping a body closes its connection (the server sees it closed); a body file is sent with progress reported
/// before its end, in more than one step; the bytes of a body that arrived before its connection dropped reach the
/// transfer before the failure, which a download resumes from. Memory is judged by what reaches the transfer, not by the process's size,
/// which other tests in the same process move.
public struct TransportConformance: Sendable {
    /// One check that did not hold.
    public struct Failure: Sendable, CustomStringConvertible {
        /// The check's name, one of ``TransportConformance/checks``.
        public let check: String
        /// What was expected and what happened.
        public let message: String

        /// `check: message`.
        public var description: String { "\(check): \(message)" }
    }

    /// The names of the checks, in the order ``run()`` runs them.
    public static let checks = [
        "redirectReturned", "bodyLimit", "timeout", "cancellation", "cancelledBeforeSending", "transferCancellation",
        "cannotConnect", "connectionLost", "closedWithoutResponse", "invalidFramingClosesConnection", "bytesSent",
        "repeatedResponseHeaders", "contentCodingNamed",
        "transferStreamed", "bodyFileSent", "firstBytesBeforeEnd", "endlessBodyAbandoned",
        "stoppedBodyClosesConnection", "uploadProgressBeforeEnd", "trailerFields", "bytesBeforeDropDelivered",
    ]

    let makeTransport: @Sendable (MockServer) -> any HTTPTransport

    /// Creates the kit for transports made by `makeTransport`.
    /// - Parameter makeTransport: Returns a new transport for the check's server; called once per check.
    public init(_ makeTransport: @escaping @Sendable (MockServer) -> any HTTPTransport) {
        self.makeTransport = makeTransport
    }

    /// Runs every check, one after another.
    /// - Returns: The checks that did not hold; empty when the transport conforms.
    public func run() async -> [Failure] {
        var failures: [Failure] = []
        for check in Self.checks {
            if let message = await run(check) { failures.append(Failure(check: check, message: message)) }
        }
        return failures
    }

    /// Runs one check by name.
    /// - Parameter check: One of ``checks``.
    /// - Returns: What went wrong, or `nil` when the check holds.
    public func run(_ check: String) async -> String? {
        let server: MockServer
        do {
            server = try MockServer()
        } catch {
            return "MockServer could not start: \(error)"
        }
        let transport = makeTransport(server)
        defer {
            transport.close()
            server.shutdown()
        }
        switch check {
        case "redirectReturned": return await redirectReturned(transport, server)
        case "bodyLimit": return await bodyLimit(transport, server)
        case "timeout": return await timeout(transport, server)
        case "cancellation": return await cancellation(transport, server)
        case "cancelledBeforeSending": return await cancelledBeforeSending(transport, server)
        case "transferCancellation": return await transferCancellation(transport, server)
        case "cannotConnect": return await cannotConnect(transport)
        case "connectionLost": return await connectionLost(transport, server)
        case "closedWithoutResponse": return await closedWithoutResponse(transport, server)
        case "invalidFramingClosesConnection": return await invalidFramingClosesConnection(transport, server)
        case "bytesSent": return await bytesSent(transport, server)
        case "repeatedResponseHeaders": return await repeatedResponseHeaders(transport, server)
        case "contentCodingNamed": return await contentCodingNamed(transport, server)
        case "transferStreamed": return await transferStreamed(transport, server)
        case "bodyFileSent": return await bodyFileSent(transport, server)
        case "firstBytesBeforeEnd": return await firstBytesBeforeEnd(transport, server)
        case "endlessBodyAbandoned": return await endlessBodyAbandoned(transport, server)
        case "stoppedBodyClosesConnection": return await stoppedBodyClosesConnection(transport, server)
        case "uploadProgressBeforeEnd": return await uploadProgressBeforeEnd(transport, server)
        case "trailerFields": return await trailerFields(transport, server)
        case "bytesBeforeDropDelivered": return await bytesBeforeDropDelivered(transport, server)
        default: return "no such check"
        }
    }

    // MARK: Checks

    private func redirectReturned(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { request in
            request.path == "/start" ? .redirect(to: "/elsewhere", status: 302) : .text("followed")
        }
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/start")))
        guard case .success(let response) = result else { return "expected the 302, got \(result)" }
        guard response.statusCode == 302, response.headers["Location"] == "/elsewhere" else {
            return "expected 302 with its Location, got \(response.statusCode)"
        }
        return server.requestCount == 1 ? nil : "the redirect was followed (\(server.requestCount) requests)"
    }

    private func bodyLimit(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { _ in MockResponse(status: 200, body: Data(repeating: 0x61, count: 256 * 1024)) }
        var options = TransportOptions(timeout: 30)
        options.maximumResponseBodySize = 1024
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/large")), options)
        guard case .failure(.responseTooLarge(let limit)) = result, limit == 1024 else {
            return "expected responseTooLarge(limit: 1024), got \(result)"
        }
        return nil
    }

    /// The attempt's timeout bounds the whole exchange: a head that does not come, and a body that stops after its
    /// head.
    private func timeout(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        let cases: [(String, MockFault)] = [("head", .delayHeaders(20)), ("body", .delayBody(20))]
        for (part, fault) in cases {
            server.route { _ in MockResponse(status: 200, body: Data(count: 1000), faults: [fault]) }
            let stopwatch = WireStopwatch()
            let result = await send(
                transport, HTTPRequest(method: .get, url: server.url("/slow")), TransportOptions(timeout: 0.5))
            let time = stopwatch.stop()
            guard case .failure(.transportFailed(let failure, _)) = result, failure.category == .timedOut else {
                return "expected a timedOut failure with a delayed \(part), got \(result)"
            }
            // Below the 20 s the server holds, once the machine's own lateness is taken out: on 2 cores busy with a
            // release build beside the whole test suite, this 0.5 s timeout once fired after 19 s.
            if time.net >= 15 {
                return "the 0.5 s timeout fired after \(time.elapsed) s with a delayed \(part) (this process ran its "
                    + "tasks \(time.lateness) s late meanwhile)"
            }
        }
        return nil
    }

    private func cancellation(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        await heldRequestStops(server, by: "cancellation") { request in
            await send(transport, request)
        } cancel: { task in
            task.cancel()
        }
    }

    private func cancelledBeforeSending(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { _ in .text("ok") }
        // An idle connection first, which would write a request at once.
        _ = await send(transport, HTTPRequest(method: .get, url: server.url("/first")))
        let cancelled = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await send(transport, HTTPRequest(method: .get, url: server.url("/cancelled")))
        }.value
        guard case .failure(.cancelled) = cancelled else { return "expected cancelled, got \(cancelled)" }
        _ = await send(transport, HTTPRequest(method: .get, url: server.url("/last")))
        let paths = server.requests.map(\.path)
        return paths == ["/first", "/last"] ? nil : "the server saw \(paths)"
    }

    private func transferCancellation(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        guard transport.capabilities.contains(.transferCancellation) else { return nil }
        let signal = CancellationSignal()
        let transfer = HTTPTransfer(head: { _ in }, body: { _ in }, signal: signal)
        return await heldRequestStops(server, by: "cancelling the transfer") { request in
            await send(transport, request, TransportOptions(timeout: 30), transfer: transfer)
        } cancel: { _ in
            signal.cancel()
        }
    }

    /// Sends a request the server holds for 20 s, calls `cancel` once it has reached the server (so that the
    /// cancellation meets a request on the wire), and checks that it ends `cancelled` within 10 s, less
    /// the machine's own lateness (``LatenessMeter``).
    private func heldRequestStops(
        _ server: MockServer, by what: String,
        send: @escaping @Sendable (HTTPRequest) async -> Result<SimpleResponse, SimpleNetworkingError>,
        cancel: (Task<Result<SimpleResponse, SimpleNetworkingError>, Never>) -> Void
    ) async -> String? {
        server.route { _ in MockResponse(status: 200, faults: [.delayHeaders(20)]) }
        let request = HTTPRequest(method: .get, url: server.url("/slow"))
        let task = Task { await send(request) }
        for _ in 0..<300 where server.requestCount == 0 { try? await Task.sleep(nanoseconds: 10_000_000) }
        let stopwatch = WireStopwatch()
        cancel(task)
        let result = await task.value
        let time = stopwatch.stop()
        guard case .failure(.cancelled) = result else { return "expected cancelled, got \(result)" }
        // The machine's own lateness is taken out: in one CI run every task of the process stood still for 10 s.
        return time.net < 10
            ? nil : "\(what) took \(time.elapsed) s (this process ran its tasks \(time.lateness) s late meanwhile)"
    }

    private func cannotConnect(_ transport: any HTTPTransport) async -> String? {
        // A reserved port that refuses connections.
        let refusing: RefusingPort
        do {
            refusing = try RefusingPort()
        } catch {
            return "RefusingPort could not be made: \(error)"
        }
        let result = await send(transport, HTTPRequest(method: .get, url: refusing.url("/nobody")))
        guard case .failure(.transportFailed(let failure, _)) = result, failure.category == .cannotConnect else {
            return "expected a cannotConnect failure, got \(result)"
        }
        return nil
    }

    private func connectionLost(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { _ in
            MockResponse(status: 200, body: Data(repeating: 0x62, count: 4096), faults: [.dropAfterBodyBytes(100)])
        }
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/cut")))
        guard case .failure(.transportFailed(let failure, _)) = result, failure.category == .connectionLost else {
            return "expected a connectionLost failure, got \(result)"
        }
        return nil
    }

    /// A download resumes from the bytes that reached it before the connection dropped
    /// (``SimpleRequest/download(to:resumable:)``): a streaming transport hands them over before it fails, and sends a
    /// range request's `Accept-Encoding: identity` as given, so the bytes are those on the wire.
    private func bytesBeforeDropDelivered(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        guard transport.capabilities.contains(.streamsResponseBody) else { return nil }
        let body = Data(repeating: 0x63, count: 600_000)
        server.route { _ in MockResponse(status: 200, body: body, faults: [.dropAfterBodyBytes(300_000)]) }
        let received = Locked(0)
        let transfer = HTTPTransfer(
            head: { _ in }, body: { bytes in received.withLock { $0 += bytes.count } })
        var request = HTTPRequest(method: .get, url: server.url("/dropped"))
        request.headers["Accept-Encoding"] = "identity"
        let result = await send(transport, request, transfer: transfer)
        guard case .failure(.transportFailed(let failure, _)) = result, failure.category == .connectionLost else {
            return "expected a connectionLost failure, got \(result)"
        }
        let total = received.current
        guard total > 0, total <= 300_000 else {
            return "\(total) of the 300,000 bytes sent before the drop reached the transfer"
        }
        guard let sent = server.requests.first, sent.httpHeaders.values(for: "Accept-Encoding") == ["identity"] else {
            return "Accept-Encoding went as \(server.requests.first?.httpHeaders.values(for: "Accept-Encoding") ?? [])"
        }
        return nil
    }

    private func closedWithoutResponse(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { _ in MockResponse(status: 200, faults: [.closeWithoutResponse]) }
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/silent")))
        guard case .failure(.transportFailed(let failure, _)) = result,
            failure.category == .badServerResponse || failure.category == .connectionLost
        else {
            return "expected a badServerResponse or connectionLost failure, got \(result)"
        }
        return nil
    }

    private func trailerFields(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { _ in
            var response = MockResponse(status: 200, body: Data("hello".utf8), chunked: true)
            response.headers = [("Trailer", "X-Checksum")]
            response.trailers = [("X-Checksum", "5d41402a")]
            return response
        }
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/trailers")))
        guard case .success(let response) = result, response.statusCode == 200 else {
            return "expected 200 with the body before the trailer fields, got \(result)"
        }
        return response.body == Data("hello".utf8) ? nil : "the body arrived as \(response.body.count) other bytes"
    }

    /// How long a check waits for the server to see a connection closed, in seconds: long enough for a busy machine
    /// (a URLSession closes a retired session's connections when the session is deallocated, on a queue of its own),
    /// and a transport that keeps the connection fails all the same.
    static let closeWait = 15

    /// The server's open connections once none are left, or after ``closeWait`` seconds.
    private func openConnections(on server: MockServer) async -> Int {
        for _ in 0..<(Self.closeWait * 100) where server.openConnectionCount > 0 {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return server.openConnectionCount
    }

    /// Two `Content-Length` fields, 10 then 5, and a 5-byte body: a client that reads it by the last length takes it
    /// as complete, and would write its next request on a connection the server may still read as this body.
    private func invalidFramingClosesConnection(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        let conflicting = Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 5\r\n\r\nhello".utf8)
        server.route { request in
            request.path == "/bad" ? MockResponse(faults: [.rawResponse(conflicting)]) : .text("ok")
        }
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/bad")))
        guard case .failure(.transportFailed(let failure, _)) = result, failure.category == .badServerResponse else {
            return "expected a badServerResponse failure, got \(result)"
        }
        let open = await openConnections(on: server)
        guard open == 0 else {
            return "\(open) connection(s) still open \(Self.closeWait) s after a response with invalid framing"
        }
        let next = await send(transport, HTTPRequest(method: .get, url: server.url("/next")))
        guard case .success(let response) = next, response.statusCode == 200 else {
            return "expected the next request's 200, got \(next)"
        }
        return nil
    }

    private func bytesSent(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { _ in .status(204) }
        let body = Data((0...255).map { UInt8($0) } + Array("end\r\n\r\n".utf8))
        let headers: HTTPHeaders = [
            "X-Plain": "value", "X-Spaces": "two  spaces\tand a tab", "X-Unicode": "caf\u{E9}",
            "Content-Type": "application/octet-stream",
        ]
        let result = await send(
            transport, HTTPRequest(method: .put, url: server.url("/bytes?q=a%20b"), headers: headers, body: body))
        guard case .success(let response) = result, response.statusCode == 204 else {
            return "expected 204, got \(result)"
        }
        guard let recorded = server.requests.first else { return "the server received nothing" }
        if recorded.method != "PUT" { return "method \(recorded.method) arrived instead of PUT" }
        if recorded.target != "/bytes?q=a%20b" { return "target \(recorded.target) arrived instead of /bytes?q=a%20b" }
        if recorded.body != body { return "the body arrived as \(recorded.body.count) different bytes" }
        for field in headers where recorded.header(field.name) != field.value {
            return "\(field.name) arrived as \(String(describing: recorded.header(field.name)))"
        }
        return nil
    }

    private func repeatedResponseHeaders(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        let cookies = ["a=1; Path=/", "b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "c=3"]
        server.route { _ in
            MockResponse(status: 200, headers: cookies.map { (name: "Set-Cookie", value: $0) }, body: Data())
        }
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/cookies")))
        guard case .success(let response) = result else { return "expected a response, got \(result)" }
        let received = response.headers.values(for: "Set-Cookie")
        return received == cookies ? nil : "Set-Cookie fields arrived as \(received)"
    }

    /// A gzip body and what it decodes to, made with Python's `gzip` module (its time field zero).
    private static let coded = (
        gzip: Data(
            base64Encoded: "H4sIAAAAAAACAwvOzC3ISfVLLSnPL8rOzEtXyE5NLShWKMlIVUjOTwEK6CkEj0QlAH064lEYAQAA") ?? Data(),
        decoded: Data(String(repeating: "SimpleNetworking keeps the coding. ", count: 8).utf8)
    )

    private func contentCodingNamed(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        let coded = Self.coded
        server.route { _ in MockResponse(status: 200, headers: [("Content-Encoding", "gzip")], body: coded.gzip) }
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/coded")))
        guard case .success(let response) = result, response.statusCode == 200 else {
            return "expected the gzip body, got \(result)"
        }
        // Decoded or not, the body is the representation's coding: a download must not resume from it.
        let named = response.headers.values(for: "Content-Encoding").map { $0.lowercased() }
        guard named.contains("gzip") else { return "the head names the coding as \(named)" }
        guard response.body == coded.decoded || response.body == coded.gzip else {
            return "the body arrived as \(response.body.count) bytes, neither coded nor decoded"
        }
        return nil
    }

    private func transferStreamed(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server.route { _ in MockResponse(status: 200, headers: [("X-Head", "yes")], body: body) }
        let received = Locked<(heads: [Int], body: Data)>(([], Data()))
        let transfer = HTTPTransfer(
            head: { head in received.withLock { $0.heads.append(head.statusCode) } },
            body: { bytes in received.withLock { $0.body.append(bytes) } })
        let result: Result<SimpleResponse, SimpleNetworkingError>
        do throws(SimpleNetworkingError) {
            result = .success(
                try await transport.send(
                    HTTPRequest(method: .get, url: server.url("/stream")), options: TransportOptions(timeout: 30),
                    transfer: transfer))
        } catch {
            result = .failure(error)
        }
        guard case .success(let response) = result, response.statusCode == 200 else {
            return "expected 200, got \(result)"
        }
        let (heads, streamed) = received.current
        if heads != [200] { return "the transfer got heads \(heads) instead of one 200" }
        if streamed != body { return "the transfer got \(streamed.count) different bytes instead of the body" }
        if !response.body.isEmpty {
            return "the response kept \(response.body.count) bytes: the body belongs to the transfer"
        }
        return response.headers["X-Head"] == "yes" ? nil : "the response lost its headers"
    }

    private func bodyFileSent(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        server.route { _ in .status(204) }
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try body.write(to: file)
        } catch {
            return "the body file could not be written: \(error)"
        }
        let transfer = HTTPTransfer(head: { _ in }, body: { _ in })
        let request = HTTPRequest(method: .post, url: server.url("/upload"), bodyFile: file)
        do throws(SimpleNetworkingError) {
            let response = try await transport.send(request, options: TransportOptions(timeout: 30), transfer: transfer)
            guard response.statusCode == 204 else { return "expected 204, got \(response.statusCode)" }
        } catch {
            return "expected 204, got \(error)"
        }
        guard let recorded = server.requests.first else { return "the server received nothing" }
        return recorded.body == body ? nil : "the body file arrived as \(recorded.body.count) different bytes"
    }

    // MARK: Streaming checks (for transports that promise to stream)

    private func firstBytesBeforeEnd(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        guard transport.capabilities.contains(.streamsResponseBody) else { return nil }
        // Twelve pieces 0.25 s apart: the body takes at least 2.75 s, whatever the machine's load.
        server.route { _ in
            MockResponse(status: 200, body: Data(count: 12 * 1024), faults: [.drip(bytes: 1024, interval: 0.25)])
        }
        let start = Date()
        let firstAt = Locked<TimeInterval?>(nil)
        let transfer = HTTPTransfer(
            head: { _ in },
            body: { _ in firstAt.withLock { $0 = $0 ?? Date().timeIntervalSince(start) } })
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/slow")), transfer: transfer)
        let end = Date().timeIntervalSince(start)
        guard case .success = result else { return "expected the slow body, got \(result)" }
        guard let first = firstAt.current else { return "no body reached the transfer" }
        return first < end - 1
            ? nil : "the first bytes reached the transfer after \(first) s, the body ended at \(end) s: buffered"
    }

    private func endlessBodyAbandoned(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        guard transport.capabilities.contains(.streamsResponseBody) else { return nil }
        // Declares 5 GiB; the connection drops after 16 MiB, so a transport that buffers fails by that drop, holding
        // 16 MiB at most, and a slow machine cannot make a streaming transport miss a deadline.
        let piece = Data(count: 64 * 1024)
        server.route { _ in
            MockResponse(
                status: 200, headers: [("Content-Length", "5368709120")], body: piece,
                faults: [.repeatBody(.max), .drip(bytes: 64 * 1024, interval: 0.005), .dropAfterBodyBytes(16 << 20)])
        }
        let enough = 4 * 1024 * 1024
        let received = Locked(0)
        let stop = SimpleNetworkingError.fileFailed(reason: "the conformance check stopped the body")
        let transfer = HTTPTransfer(
            head: { _ in },
            body: { bytes throws(SimpleNetworkingError) in
                let total = received.withLock { total in
                    total += bytes.count
                    return total
                }
                if total >= enough { throw stop }
            })
        // No size limit, so that nothing refuses the declared length. 4 MiB take 64 pieces, 5 ms apart; the pauses
        // let libcurl's passes end, so that a URLSession transport can cancel (see "URLSession on Linux" in the
        // documentation). The timeout only ends a transport that hangs.
        let result = await send(
            transport, HTTPRequest(method: .get, url: server.url("/endless")), TransportOptions(timeout: 60),
            transfer: transfer)
        let total = received.current
        guard case .failure(.fileFailed) = result else {
            return "expected the transfer's own error after \(enough) bytes, got \(result) after \(total) bytes"
        }
        return total <= enough + 1024 * 1024
            ? nil : "\(total - enough) bytes reached the transfer after it stopped the body"
    }

    private func stoppedBodyClosesConnection(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        guard transport.capabilities.contains(.streamsResponseBody) else { return nil }
        server.route { _ in
            MockResponse(
                status: 200, body: Data(count: 16 * 1024), chunked: true,
                faults: [.repeatBody(.max), .drip(bytes: 16 * 1024, interval: 0.02)])
        }
        let transfer = HTTPTransfer(head: { _ in }, body: { _ throws(SimpleNetworkingError) in throw .cancelled })
        let result = await send(transport, HTTPRequest(method: .get, url: server.url("/endless")), transfer: transfer)
        guard case .failure(.cancelled) = result else { return "expected the transfer's cancelled, got \(result)" }
        let open = await openConnections(on: server)
        return open == 0 ? nil : "\(open) connection(s) still open \(Self.closeWait) s after the body was stopped"
    }

    private func uploadProgressBeforeEnd(_ transport: any HTTPTransport, _ server: MockServer) async -> String? {
        guard transport.capabilities.contains(.streamsRequestBody) else { return nil }
        server.route { _ in .status(204) }
        let size = 8 * 1024 * 1024
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            // A patterned block repeated: building 8 MiB byte by byte would hold one of the few cooperative threads.
            let block = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            var body = Data(capacity: size)
            for _ in 0..<(size / block.count) { body.append(block) }
            try body.write(to: file)
        } catch {
            return "the body file could not be written: \(error)"
        }
        let progress = Locked<[Int64]>([])
        let transfer = HTTPTransfer(
            head: { _ in }, body: { _ in }, sent: { bytes, _ in progress.withLock { $0.append(bytes) } })
        let request = HTTPRequest(method: .put, url: server.url("/upload"), bodyFile: file)
        let result = await send(transport, request, transfer: transfer)
        guard case .success(let response) = result, response.statusCode == 204 else {
            return "expected 204, got \(result)"
        }
        let steps = progress.current
        let between = steps.filter { $0 > 0 && $0 < Int64(size) }
        if between.isEmpty { return "upload progress \(steps.prefix(5)): nothing before the end of the file" }
        if steps != steps.sorted() { return "upload progress went backwards: \(steps.prefix(10))" }
        return server.requests.first?.body.count == size ? nil : "the file did not arrive whole"
    }

    // MARK: Helpers

    private func send(
        _ transport: any HTTPTransport, _ request: HTTPRequest,
        _ options: TransportOptions = TransportOptions(timeout: 30), transfer: HTTPTransfer
    ) async -> Result<SimpleResponse, SimpleNetworkingError> {
        do throws(SimpleNetworkingError) {
            return .success(try await transport.send(request, options: options, transfer: transfer))
        } catch {
            return .failure(error)
        }
    }

    private func send(
        _ transport: any HTTPTransport, _ request: HTTPRequest,
        _ options: TransportOptions = TransportOptions(timeout: 30)
    ) async -> Result<SimpleResponse, SimpleNetworkingError> {
        do throws(SimpleNetworkingError) {
            return .success(try await transport.send(request, options: options))
        } catch {
            return .failure(error)
        }
    }
}
