import Foundation
import FuzzHarness
import SimpleNetworking
@_spi(Fuzzing) import SimpleNetworkingTesting

/// `MockServer`'s HTTP/1.1 request parser (through `MockServer.parseConnection(_:)`, SPI) on the bytes of one
/// connection.
///
/// Invariant: no trap; an invalid request is answered with 400, 413, 431 or 501; sizes stay within the input (at
/// least 16 bytes per request, no more body bytes than input bytes); each request read has a token method, a
/// visible-ASCII target, HTTP/1.0 or HTTP/1.1, token header names and trimmed values without CR, LF or NUL; and a
/// request written back out (its head as read, its body framed as it came) reads back as the same request.
///
/// Input: the bytes a client sends, as if it then closed the connection.
@main
enum FuzzMockServerRequest: FuzzTarget {
    /// The largest header section the server reads (`MockServerParsing.maxHeaderBytes`).
    static let maximumHeadBytes = 64 * 1024

    static func check(_ input: FuzzInput) {
        let parsed = MockServer.parseConnection(input.bytes)
        if let status = parsed.rejectionStatus {
            Fuzzer.require(
                [400, 413, 431, 501].contains(status), "an invalid request is answered 4xx or 501: \(status)")
        }
        Fuzzer.require(parsed.requests.count * 16 <= input.bytes.count, "each request takes at least 16 bytes")
        let bodyBytes = parsed.requests.reduce(0) { $0 + $1.body.count }
        Fuzzer.require(bodyBytes <= input.bytes.count, "bodies hold no more bytes than the input")
        for request in parsed.requests {
            requireWellFormed(request)
            let (head, body) = serialized(request)
            guard head.count <= maximumHeadBytes else { continue }  // repaired UTF-8 can grow a value threefold
            let again = MockServer.parseConnection(head + body)
            Fuzzer.require(
                again.rejectionStatus == nil && again.requests.count == 1,
                "a request written back out reads back as one request (\(again.requests.count) read, "
                    + "status \(again.rejectionStatus.map(String.init) ?? "none"))")
            guard let copy = again.requests.first else { continue }
            Fuzzer.require(
                copy.method == request.method && copy.target == request.target
                    && copy.httpVersion == request.httpVersion && copy.body == request.body
                    && copy.httpHeaders.fields == request.httpHeaders.fields,
                "a request written back out reads back the same")
        }
    }

    static func requireWellFormed(_ request: RecordedRequest) {
        Fuzzer.require(HTTPGrammar.isToken(request.method), "a request's method is a token")
        Fuzzer.require(
            !request.target.isEmpty && request.target.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F },
            "a request's target is visible ASCII")
        Fuzzer.require(["HTTP/1.0", "HTTP/1.1"].contains(request.httpVersion), "a request's version is HTTP/1.x")
        for field in request.httpHeaders {
            let (name, value) = (field.name, field.value)
            Fuzzer.require(HTTPGrammar.isToken(name), "a header name is a token")
            Fuzzer.require(
                !value.utf8.contains { $0 == 0 || $0 == 0x0D || $0 == 0x0A }, "a header value has no CR, LF or NUL")
            let edges = [value.utf8.first, value.utf8.last].compactMap { $0 }
            Fuzzer.require(!edges.contains { $0 == 0x20 || $0 == 0x09 }, "a header value is trimmed")
        }
    }

    /// The request's head as read, and its body framed as it came: chunked when it had `Transfer-Encoding` (the
    /// parser accepts that only with `chunked` last), otherwise as its `Content-Length` says.
    static func serialized(_ request: RecordedRequest) -> (head: [UInt8], body: [UInt8]) {
        var head = "\(request.method) \(request.target) \(request.httpVersion)\r\n"
        for field in request.httpHeaders { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        let isChunked = request.httpHeaders.contains { $0.name.lowercased() == "transfer-encoding" }
        guard isChunked else { return (Array(head.utf8), Array(request.body)) }
        var body: [UInt8] = []
        if !request.body.isEmpty {
            body += Array("\(String(request.body.count, radix: 16))\r\n".utf8) + request.body + [0x0D, 0x0A]
        }
        body += Array("0\r\n\r\n".utf8)
        return (Array(head.utf8), body)
    }
}
