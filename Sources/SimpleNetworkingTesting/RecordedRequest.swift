import Foundation
import SimpleNetworking

/// One request as received by a ``MockServer``, recorded as soon as it was fully read.
public struct RecordedRequest: Sendable {
    /// The request method, e.g. `GET`.
    public let method: String
    /// The request-target exactly as received, e.g. `/a/b?x=1%202`.
    public let target: String
    /// The part of `target` before `?`, still percent-encoded.
    public let path: String
    /// The raw query after `?`, or `nil` if the target has no `?`.
    public let query: String?
    /// The query split on `&` and `=`, percent-decoded (`+` is kept as `+`); empty pieces are skipped.
    public let queryItems: [(name: String, value: String)]
    /// Header fields in the order received, with names as received, as ``HTTPHeaders`` like everywhere else in the
    /// library: `request.httpHeaders["Accept"]` (any case), `.values(for: "Cookie")` for repeated fields, and
    /// `.fields` in order.
    public let httpHeaders: HTTPHeaders
    /// Header fields in the order received, as name and value pairs.
    @available(*, deprecated, message: "use httpHeaders, an HTTPHeaders: httpHeaders[\"Accept\"], httpHeaders.fields")
    public var headers: [(name: String, value: String)] { httpHeaders.fields.map { ($0.name, $0.value) } }
    /// The body, de-chunked if it was sent with chunked transfer coding.
    public let body: Data
    /// The HTTP version from the request line, e.g. `HTTP/1.1`.
    public let httpVersion: String
    /// The 0-based position of this request among all requests the server received.
    public let sequenceNumber: Int
    /// The 0-based index of the accepted connection that carried this request.
    public let connectionIndex: Int

    init(
        method: String, target: String, headers: [(name: String, value: String)], body: Data,
        httpVersion: String, sequenceNumber: Int, connectionIndex: Int
    ) {
        self.method = method
        self.target = target
        self.httpHeaders = HTTPHeaders(headers.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })
        self.body = body
        self.httpVersion = httpVersion
        self.sequenceNumber = sequenceNumber
        self.connectionIndex = connectionIndex
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            let rawQuery = String(target[target.index(after: mark)...])
            query = rawQuery
            queryItems = Self.decodeQueryItems(rawQuery)
        } else {
            path = target
            query = nil
            queryItems = []
        }
    }

    /// The value of the first header whose name matches `name`, ignoring case; the same as `httpHeaders[name]`.
    /// - Parameter name: The header name to look for.
    /// - Returns: The header value, or `nil` if there is no such header.
    public func header(_ name: String) -> String? {
        httpHeaders[name]
    }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    public var bodyText: String {
        String(decoding: body, as: UTF8.self)
    }

    private static func decodeQueryItems(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            if let equals = piece.firstIndex(of: "=") {
                return (percentDecode(piece[..<equals]), percentDecode(piece[piece.index(after: equals)...]))
            }
            return (percentDecode(piece), "")
        }
    }

    /// Percent-decodes `text`; malformed escapes are kept literally and invalid UTF-8 is replaced.
    static func percentDecode(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The value of one ASCII hex digit, or `nil`.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
