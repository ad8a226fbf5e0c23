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

    static func validate(_ headers: HTTPHeaders) throws(SimpleNetworkingError) {
        for field in headers {
            guard isToken(field.name) else {
                throw .invalidRequest(reason: "a header name is not a valid HTTP token (\(printable(field.name)))")
            }
            if let byte = firstForbiddenByte(inValue: field.value) {
                throw .invalidRequest(
                    reason: "the value of header \(field.name) contains the control character 0x\(hex(byte))")
            }
        }
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
