import Foundation

/// The request line and header fields of one parsed request.
struct MockServerRequestHead {
    var method: String
    var target: String
    var version: String
    var headers: [(name: String, value: String)]

    /// All values of the headers named `name` (case-insensitive), in order.
    func values(of name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name }.map(\.value)
    }

    /// Whether a `Connection` header lists `token` (case-insensitive).
    func connectionHasToken(_ token: String) -> Bool {
        values(of: "connection").contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == token }
        }
    }

    /// Whether the client lets the connection carry another request after this one: HTTP/1.1 unless it sends
    /// `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    var keepsAlive: Bool {
        version == "HTTP/1.1" ? !connectionHasToken("close") : connectionHasToken("keep-alive")
    }

    /// Whether the client waits for `100 Continue` before sending the body (`Expect: 100-continue`, HTTP/1.1).
    var expectsContinue: Bool {
        version == "HTTP/1.1" && values(of: "expect").contains { $0.lowercased() == "100-continue" }
    }
}

/// How the body of a request is delimited.
enum MockServerBodyFraming: Equatable {
    case none
    case length(Int)
    case chunked
}

/// Why reading a request failed.
enum MockServerReadFailure: Error {
    /// The peer closed the connection, it failed, or the server is shutting down: close without responding.
    case closed
    /// The request is invalid: respond with this status and close.
    case invalid(status: Int)
}

/// Parsing of the HTTP/1.1 request line, header section and body framing.
enum MockServerParsing {
    /// The largest header section accepted, in bytes.
    static let maxHeaderBytes = 64 * 1024
    /// The largest request body accepted, in bytes.
    static let maxBodyBytes = 256 * 1024 * 1024

    /// Parses a header section (without the final empty line) or returns `nil` if it is malformed.
    static func parseHead(_ bytes: ArraySlice<UInt8>) -> MockServerRequestHead? {
        var lines = split(bytes)
        // RFC 9112 §2.2: a server should ignore at least one empty line before the request line.
        while let first = lines.first, first.isEmpty { lines.removeFirst() }
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3,
            !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte),
            !parts[1].isEmpty, parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
            parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8)
        else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { return nil }
            var value = line[(colon + 1)...]
            guard !value.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) else { return nil }
            while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
            while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
            headers.append((ascii(name), String(decoding: value, as: UTF8.self)))
        }
        return MockServerRequestHead(
            method: ascii(parts[0]), target: ascii(parts[1]), version: ascii(parts[2]), headers: headers)
    }

    /// Determines how the body of `head` is framed.
    /// - Throws: ``MockServerReadFailure/invalid(status:)`` for contradictory or unsupported framing.
    static func framing(of head: MockServerRequestHead) throws(MockServerReadFailure) -> MockServerBodyFraming {
        let encodings = head.values(of: "transfer-encoding")
        if !encodings.isEmpty {
            let codings = encodings.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            // RFC 9112 section 6.3: a request whose Transfer-Encoding does not end in chunked, an empty one
            // included, has no reliable length: 400; a coding the server does not know: 501.
            guard let last = codings.last else { throw .invalid(status: 400) }
            guard last == "chunked" else { throw .invalid(status: 501) }
            return .chunked
        }
        let lengths = head.values(of: "content-length")
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lengths.first else { return .none }
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
            first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let length = Int(first)
        else { throw .invalid(status: 400) }
        guard length <= maxBodyBytes else { throw .invalid(status: 413) }
        return length == 0 ? .none : .length(length)
    }

    /// Reads the next request: its header section, then the body its framing asks for.
    /// - Parameters:
    ///   - reader: The connection's bytes.
    ///   - beforeBody: Called when a body follows the head, before it is read (the server answers
    ///     `Expect: 100-continue` there); `false` ends the connection as if the peer had closed it.
    /// - Returns: The head and the body, or `nil` if the peer closed before sending any byte.
    /// - Throws: ``MockServerReadFailure`` on a truncated stream or an invalid request.
    static func readRequest(
        from reader: inout MockServerConnectionReader, beforeBody: (MockServerRequestHead) -> Bool
    ) throws(MockServerReadFailure) -> (head: MockServerRequestHead, body: Data)? {
        guard let bytes = try reader.readHead() else { return nil }
        guard let head = parseHead(bytes) else { throw .invalid(status: 400) }
        let framing = try framing(of: head)
        if framing != .none, !beforeBody(head) { throw .closed }
        switch framing {
        case .none: return (head, Data())
        case .length(let count): return (head, Data(try reader.readExactly(count)))
        case .chunked: return (head, try readChunkedBody(from: &reader))
        }
    }

    /// Reads a chunked body, discarding chunk extensions and trailers.
    /// - Throws: ``MockServerReadFailure`` if the stream ends or the framing is malformed.
    static func readChunkedBody(from reader: inout MockServerConnectionReader) throws(MockServerReadFailure) -> Data {
        var body = Data()
        while true {
            let line = try reader.readLine(limit: 4096)
            let sizeField = line.prefix { $0 != UInt8(ascii: ";") }
            let digits = sizeField.prefix { $0 != 0x20 && $0 != 0x09 }
            guard !digits.isEmpty, digits.count <= 15 else { throw .invalid(status: 400) }
            var size = 0
            for byte in digits {
                guard let value = RecordedRequest.hexValue(byte) else { throw .invalid(status: 400) }
                size = size << 4 | Int(value)
            }
            if size == 0 { break }
            guard body.count + size <= maxBodyBytes else { throw .invalid(status: 413) }
            body.append(contentsOf: try reader.readExactly(size))
            guard try reader.readExactly(2).elementsEqual([0x0D, 0x0A]) else { throw .invalid(status: 400) }
        }
        // Trailer section: header lines up to an empty line, ignored.
        while try !reader.readLine(limit: maxHeaderBytes).isEmpty {}
        return body
    }

    private static func split(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var lineStart = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 0x0D, index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A {
                lines.append(bytes[lineStart..<index])
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[lineStart..<bytes.endIndex])
        return lines
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func ascii(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

/// Buffered, shutdown-aware reading from one connection.
struct MockServerConnectionReader {
    private let fd: Int32
    private let shouldStop: () -> Bool
    private var buffer: [UInt8] = []
    private var start = 0

    init(fd: Int32, shouldStop: @escaping () -> Bool) {
        self.fd = fd
        self.shouldStop = shouldStop
    }

    /// A reader of `bytes` alone, as if the peer sent them and closed: no socket is read.
    init(bytes: [UInt8]) {
        self.init(fd: -1, shouldStop: { true })
        buffer = bytes
    }

    /// Whether no unread bytes are buffered.
    var isEmpty: Bool { start == buffer.count }

    /// Reads up to and including the empty line ending a header section.
    /// - Returns: The header section without its final CRLF CRLF, or `nil` if the peer closed before sending any byte.
    /// - Throws: ``MockServerReadFailure`` on a truncated or oversized header section.
    mutating func readHead() throws(MockServerReadFailure) -> ArraySlice<UInt8>? {
        var scanned = 0
        while true {
            if let end = find([0x0D, 0x0A, 0x0D, 0x0A], from: start + scanned) {
                guard end - start <= MockServerParsing.maxHeaderBytes else { throw .invalid(status: 431) }
                let head = buffer[start..<end]
                start = end + 4
                return head
            }
            guard buffer.count - start <= MockServerParsing.maxHeaderBytes else { throw .invalid(status: 431) }
            scanned = max(0, buffer.count - start - 3)
            guard fill() else {
                if isEmpty { return nil }
                throw .closed
            }
        }
    }

    /// Reads one CRLF-terminated line, returning it without the CRLF.
    /// - Throws: ``MockServerReadFailure`` if the stream ends or the line exceeds `limit` bytes.
    mutating func readLine(limit: Int) throws(MockServerReadFailure) -> ArraySlice<UInt8> {
        var scanned = 0
        while true {
            if let end = find([0x0D, 0x0A], from: start + scanned) {
                let line = buffer[start..<end]
                start = end + 2
                return line
            }
            guard buffer.count - start <= limit else { throw .invalid(status: 400) }
            scanned = max(0, buffer.count - start - 1)
            guard fill() else { throw .closed }
        }
    }

    /// Reads exactly `count` bytes.
    /// - Throws: ``MockServerReadFailure/closed`` if the stream ends first.
    mutating func readExactly(_ count: Int) throws(MockServerReadFailure) -> ArraySlice<UInt8> {
        while buffer.count - start < count {
            guard fill() else { throw .closed }
        }
        let bytes = buffer[start..<(start + count)]
        start += count
        return bytes
    }

    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        var index = from
        while index <= buffer.count - needle.count {
            if buffer[index] == needle[0], buffer[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Waits for and appends more bytes; returns `false` at end of stream, on error, or on shutdown.
    private mutating func fill() -> Bool {
        while !shouldStop() {
            switch MockServerSocket.waitReadable(
                fd, timeoutMilliseconds: MockServerSocket.connectionPollSliceMilliseconds)
            {
            case .timedOut:
                continue
            case .failed:
                return false
            case .ready:
                guard let bytes = MockServerSocket.receive(fd, capacity: 64 * 1024), !bytes.isEmpty else {
                    return false
                }
                if start > 0 && start >= buffer.count / 2 {
                    buffer.removeFirst(start)
                    start = 0
                }
                buffer.append(contentsOf: bytes)
                return true
            }
        }
        return false
    }
}
