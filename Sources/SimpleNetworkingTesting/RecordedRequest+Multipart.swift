import Foundation

/// One part of a `multipart/form-data` body, as a ``MockServer`` read it.
public struct RecordedPart: Sendable, Equatable {
    /// The `name` parameter of its `Content-Disposition`, exactly as sent (browsers send `"` as `%22`, CR and LF as
    /// `%0D` and `%0A`).
    public let name: String?
    /// The `filename` parameter of its `Content-Disposition`, exactly as sent, or `nil` for a plain field.
    public let filename: String?
    /// Its `Content-Type`, or `nil` when it has none.
    public let contentType: String?
    /// Its bytes.
    public let body: Data

    /// Its bytes as UTF-8 text (invalid sequences replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }
}

extension RecordedRequest {
    /// The parts of a `multipart/form-data` body, split on the boundary its `Content-Type` names (RFC 2046,
    /// section 5.1.1), or `nil` when the request has no such body or it is malformed: no boundary, a missing
    /// delimiter or closing delimiter, a part without a header section.
    public var multipartParts: [RecordedPart]? {
        guard let contentType = header("Content-Type"),
            contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Self.parameter("boundary", in: contentType), !boundary.isEmpty
        else { return nil }
        let body = [UInt8](self.body)
        let first = Array("--\(boundary)\r\n".utf8)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        guard body.starts(with: first) else { return nil }
        var parts: [RecordedPart] = []
        var start = first.count
        while true {
            guard let end = Self.find(delimiter, in: body, from: start) else { return nil }
            guard let part = Self.part(body[start..<end]) else { return nil }
            parts.append(part)
            let after = end + delimiter.count
            if body[after...].starts(with: Array("--".utf8)) { return parts }
            guard body[after...].starts(with: Array("\r\n".utf8)) else { return nil }
            start = after + 2
        }
    }

    private static func part(_ bytes: ArraySlice<UInt8>) -> RecordedPart? {
        guard let split = find(Array("\r\n\r\n".utf8), in: Array(bytes), from: 0) else { return nil }
        let headerBytes = bytes.prefix(split)
        let content = bytes.dropFirst(split + 4)
        var disposition: String?
        var contentType: String?
        for line in String(decoding: headerBytes, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch line[..<colon].lowercased() {
            case "content-disposition": disposition = value
            case "content-type": contentType = value
            default: break
            }
        }
        guard let disposition, disposition.lowercased().hasPrefix("form-data") else { return nil }
        return RecordedPart(
            name: parameter("name", in: disposition), filename: parameter("filename", in: disposition),
            contentType: contentType, body: Data(content))
    }

    /// The value of `name=value` or `name="value"` in a header value's parameters; a quoted value ends at the next
    /// `"`, as browsers never send one inside it.
    private static func parameter(_ name: String, in value: String) -> String? {
        var rest = Substring(value)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...].drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "="), rest[..<equals].lowercased() == name else { continue }
            let raw = rest[rest.index(after: equals)...]
            if raw.first == "\"" {
                let inner = raw.dropFirst()
                return inner.firstIndex(of: "\"").map { String(inner[..<$0]) }
            }
            return String(raw.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
