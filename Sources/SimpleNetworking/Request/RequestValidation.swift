/// RFC 9110 rules for what may be put on the wire, checked before anything is sent.
///
/// URLSession on Linux writes CR and LF in header values and methods straight to the socket (header injection),
/// and `setValue(_:forHTTPHeaderField:)` drops bad values silently; so the library checks first and throws.
enum RequestValidation {
    /// `tchar`: the characters of an RFC 9110 token.
    private static let tokenBytes = ByteSet(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(tokenBytes.contains)
    }

    /// A field value may hold visible characters, spaces, tabs and obs-text; never CR, LF, NUL or other controls.
    static func firstForbiddenByte(inValue value: String) -> UInt8? {
        value.utf8.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    static func validate(method: HTTPMethod) throws(SimpleNetworkingError) {
        guard isToken(method.rawValue) else {
            throw .invalidRequest(reason: "the method is not a valid HTTP token")
        }
    }

    /// Checks every field in one pass: a token name, a value without control characters, and no framing header.
    /// - Parameters:
    ///   - headers: The merged headers of one attempt, default headers included.
    ///   - allowsHostHeader: Whether a caller's `Host` is sent (``SimpleNetworking/Configuration/allowsHostHeader``).
    static func validate(_ headers: HTTPHeaders, allowsHostHeader: Bool) throws(SimpleNetworkingError) {
        for field in headers {
            guard isToken(field.name) else {
                throw .invalidRequest(reason: "a header name is not a valid HTTP token (\(printable(field.name)))")
            }
            if let byte = firstForbiddenByte(inValue: field.value) {
                throw .invalidRequest(
                    reason: "the value of header \(field.name) contains the control character 0x\(hex(byte))")
            }
            if isFramingHeader(field.name, allowsHost: allowsHostHeader) {
                throw .invalidRequest(reason: framingReason(field.name))
            }
        }
    }

    /// Whether `name` is a field that frames the message or belongs to the connection, which the library and
    /// URLSession set themselves: `Content-Length`, `Transfer-Encoding`, `Connection`, `Keep-Alive`, `Upgrade`,
    /// `TE`, `Trailer`, `Proxy-Connection` and `Host`. Set by a caller, libcurl trusts them, so a `Content-Length`
    /// shorter than the body smuggles a second request onto the connection (<doc:SecurityDefaults>).
    ///
    /// One length switch and at most two byte comparisons per field, without allocating.
    static func isFramingHeader(_ name: String, allowsHost: Bool) -> Bool {
        switch name.utf8.count {
        case 2: return name.equalsIgnoringASCIICase("TE")
        case 4: return !allowsHost && name.equalsIgnoringASCIICase("Host")
        case 7: return name.equalsIgnoringASCIICase("Upgrade") || name.equalsIgnoringASCIICase("Trailer")
        case 10: return name.equalsIgnoringASCIICase("Connection") || name.equalsIgnoringASCIICase("Keep-Alive")
        case 14: return name.equalsIgnoringASCIICase("Content-Length")
        case 16: return name.equalsIgnoringASCIICase("Proxy-Connection")
        case 17: return name.equalsIgnoringASCIICase("Transfer-Encoding")
        default: return false
        }
    }

    private static func framingReason(_ name: String) -> String {
        let remedy =
            name.equalsIgnoringASCIICase("Host")
            ? "set Configuration.allowsHostHeader to send your own Host" : "the library frames the body itself"
        return "the header \(name) controls message framing or the connection and cannot be set; \(remedy)"
    }

    /// A name with anything outside printable ASCII escaped, safe to put in an error message.
    private static func printable(_ name: String) -> String {
        name.utf8.map { (0x21...0x7E).contains($0) ? String(UnicodeScalar($0)) : "\\x" + hex($0) }.joined()
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
