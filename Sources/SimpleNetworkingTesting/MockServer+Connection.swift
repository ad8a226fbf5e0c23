import Foundation

extension MockServerCore {
    /// Serves requests on one accepted connection until the peer closes, asks to close, a fault closes it, or the
    /// server shuts down. Runs on the connection's dedicated thread, which owns (and finally closes) `fd`.
    func serveConnection(fd: Int32, index: Int) {
        defer { closeConnection(fd) }
        var reader = MockServerConnectionReader(fd: fd) { [self] in isShutdown }
        while true {
            do throws(MockServerReadFailure) {
                let read = try MockServerParsing.readRequest(from: &reader) { head in
                    !head.expectsContinue || MockServerSocket.sendAll(fd, "HTTP/1.1 100 Continue\r\n\r\n".utf8)
                }
                guard let (head, body) = read else { return }
                let (request, response) = record(head, body: body, connectionIndex: index)
                guard write(response, for: request, keepAlive: head.keepsAlive, to: fd) else { return }
            } catch {
                if case .invalid(let status) = error {
                    writeErrorAndLinger(status: status, to: fd)
                }
                return
            }
        }
    }

    /// Writes `response`, applying its faults.
    /// - Returns: Whether the connection can carry another request.
    private func write(_ response: MockResponse, for request: RecordedRequest, keepAlive: Bool, to fd: Int32) -> Bool {
        let faults = response.faults
        if faults.contains(.closeWithoutResponse) { return false }
        for case .delayHeaders(let seconds) in faults {
            guard pause(seconds) else { return false }
        }
        for case .rawResponse(let bytes) in faults {
            return MockServerSocket.sendAll(fd, bytes) && keepAlive
        }

        var headers = response.headers
        func has(_ name: String) -> Bool { headers.contains { $0.name.lowercased() == name } }
        let allowsBody = !response.statusForbidsBody
        if allowsBody && response.chunked {
            if !has("transfer-encoding") { headers.append(("Transfer-Encoding", "chunked")) }
        } else if allowsBody && !has("content-length") {
            let copies = response.faults.lazy.compactMap(\.repeatedBodyCount).first ?? 1
            let (length, overflow) = response.body.count.multipliedReportingOverflow(by: copies)
            headers.append(("Content-Length", String(overflow ? .max : length)))
        }
        let closeRequested = headers.contains { header in
            header.name.lowercased() == "connection"
                && header.value.split(separator: ",").contains {
                    $0.trimmingCharacters(in: .whitespaces).lowercased() == "close"
                }
        }
        if !keepAlive && !has("connection") { headers.append(("Connection", "close")) }
        var head = "HTTP/1.1 \(response.status) \(response.effectiveReason)\r\n"
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        guard MockServerSocket.sendAll(fd, head.utf8) else { return false }

        if faults.contains(.dropBeforeBody) { return false }
        for case .delayBody(let seconds) in faults {
            guard pause(seconds) else { return false }
        }
        let canContinue = keepAlive && !closeRequested
        guard allowsBody && request.method != "HEAD" else { return canContinue }
        if let (steps, end) = response.eventStream {
            return writeEvents(steps, end: end, to: fd) && canContinue
        }
        return writeBody(of: response, to: fd) && canContinue
    }

    /// Writes the body on the wire, `repeatBody` times, paced by `drip` and cut short by `dropAfterBodyBytes`.
    /// - Returns: `false` if the connection must be closed.
    private func writeBody(of response: MockResponse, to fd: Int32) -> Bool {
        var sliceSize = Int.max
        var interval: TimeInterval = 0
        var limit: Int?
        for fault in response.faults {
            switch fault {
            case .drip(let bytes, let seconds) where sliceSize == .max:
                sliceSize = max(1, bytes)
                interval = seconds
            case .dropAfterBodyBytes(let count) where limit == nil:
                limit = max(0, count)
            default:
                break
            }
        }
        let copies = max(0, response.faults.lazy.compactMap(\.repeatedBodyCount).first ?? 1)
        let body = [UInt8](response.body)
        let step = min(sliceSize, max(1, body.count))
        var sent = 0
        var first = true
        /// Sends one segment; `nil` to go on, or the result of the whole body.
        func send(_ segment: [UInt8]) -> Bool? {
            if let limit, sent + segment.count >= limit {
                MockServerSocket.sendAll(fd, segment.prefix(limit - sent))
                return false
            }
            guard MockServerSocket.sendAll(fd, segment) else { return false }
            sent += segment.count
            return nil
        }
        var copy = 0
        while copy < copies && !body.isEmpty {
            copy += 1
            for start in stride(from: 0, to: body.count, by: step) {
                if !first && interval > 0 {
                    guard pause(interval) else { return false }
                }
                first = false
                let slice = body[start..<min(start + step, body.count)]
                let segment =
                    response.chunked
                    ? Array(String(slice.count, radix: 16).utf8) + [0x0D, 0x0A] + slice + [0x0D, 0x0A] : Array(slice)
                if let result = send(segment) { return result }
            }
        }
        if response.chunked {
            if !first && interval > 0 {
                guard pause(interval) else { return false }
            }
            let trailers = response.trailers.map { "\($0.name): \($0.value)\r\n" }.joined()
            if let result = send(Array("0\r\n\(trailers)\r\n".utf8)) { return result }
        }
        return limit == nil
    }

    /// Answers an unparseable request with `status` and `Connection: close`, then half-closes and briefly drains
    /// input so that closing does not reset the connection before the client has read the response.
    private func writeErrorAndLinger(status: Int, to fd: Int32) {
        let reason = MockResponse(status: status).effectiveReason
        let response = "HTTP/1.1 \(status) \(reason)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        guard MockServerSocket.sendAll(fd, response.utf8) else { return }
        MockServerSocket.shutdownWrite(fd)
        for _ in 0..<10 where !isShutdown {
            switch MockServerSocket.waitReadable(fd, timeoutMilliseconds: 10) {
            case .failed:
                return
            case .timedOut:
                continue
            case .ready:
                guard let bytes = MockServerSocket.receive(fd, capacity: 64 * 1024), !bytes.isEmpty else { return }
            }
        }
    }
}

extension MockFault {
    /// The count of a `repeatBody` fault.
    fileprivate var repeatedBodyCount: Int? {
        if case .repeatBody(let count) = self { return count }
        return nil
    }
}
