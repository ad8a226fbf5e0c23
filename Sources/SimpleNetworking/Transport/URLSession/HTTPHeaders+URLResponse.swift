import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPHeaders {
    /// The headers of a Foundation response (package-wide, for transport-probe to measure).
    ///
    /// Repeated fields arrive joined with ", " in `allHeaderFields`; that is equivalent for list headers (RFC 9110,
    /// section 5.3), but not for `Set-Cookie`, whose dates hold commas, so `Set-Cookie` is split back into its fields.
    package init(_ response: HTTPURLResponse) {
        self = ResponseHead(response).headers
    }
}

/// The headers of a Foundation response, and the fields the session delegate checks before the body arrives
/// (`Content-Length`, `Transfer-Encoding`, `Content-Encoding`), picked out in the same pass: looking each of them up
/// afterwards cost more than the conversion's own loop.
struct ResponseHead {
    /// Every field, `Set-Cookie` split back into its fields (see ``HTTPHeaders/init(_:)``).
    private(set) var headers = HTTPHeaders()
    /// The first `Content-Length` value, and how many fields of that name there are.
    private(set) var contentLength: String?
    private(set) var contentLengthCount = 0
    /// Whether there is a `Transfer-Encoding` field.
    private(set) var hasTransferEncoding = false
    /// The first `Content-Encoding` value.
    private(set) var contentEncoding: String?

    /// On Linux `allHeaderFields` rebuilds the response's `[String: String]` as `[AnyHashable: Any]` on every call,
    /// so it is read once; casting that whole dictionary back costs more than casting each name through `base`.
    init(_ response: HTTPURLResponse) {
        let all = response.allHeaderFields
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(all.count)
        for (name, value) in all {
            // Through `base`: a cast from `Any` that checks one type, where casting the AnyHashable itself goes
            // through its generic box and costs several times more.
            guard let name = name.base as? String else { continue }
            let value = value as? String ?? "\(value)"
            // The length and the first byte rule out almost every other name before a full comparison.
            switch (name.utf8.count, name.utf8.first.map { $0 | 0x20 }) {
            case (10, UInt8(ascii: "s")) where Self.name(name, is: "set-cookie"):
                for cookie in SetCookieFields.split(value) {
                    fields.append(HTTPHeaders.Field(name: name, value: cookie))
                }
                continue
            case (14, UInt8(ascii: "c")) where Self.name(name, is: "content-length"):
                if contentLength == nil { contentLength = value }
                contentLengthCount += 1
            case (16, UInt8(ascii: "c")) where Self.name(name, is: "content-encoding"):
                if contentEncoding == nil { contentEncoding = value }
            case (17, UInt8(ascii: "t")) where Self.name(name, is: "transfer-encoding"):
                hasTransferEncoding = true
            default:
                break
            }
            fields.append(HTTPHeaders.Field(name: name, value: value))
        }
        headers = HTTPHeaders(fields)
    }

    /// Whether `name` is `lowercased` without regard to ASCII case, compared on its contiguous bytes: the generic
    /// comparison of two UTF-8 views cost about 2,000 instructions for one 14-byte name.
    private static func name(_ name: String, is lowercased: StaticString) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
            let target = lowercased.utf8Start
            for index in bytes.indices {
                let byte = bytes[index]
                if (byte >= 65 && byte <= 90 ? byte + 32 : byte) != target[index] { return false }
            }
            return true
        }
    }
}
