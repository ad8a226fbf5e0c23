/// Reference checks of the HTTP and URL grammars, written apart from the library's so that an invariant does not
/// restate the code it checks.
public enum HTTPGrammar {
    /// Whether `text` is an RFC 9110 token: one or more of `!#$%&'*+-.^_`|~`, digits and ASCII letters.
    /// - Parameter text: The text.
    /// - Returns: The answer.
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `byte` is an RFC 9110 `tchar`.
    /// - Parameter byte: The byte.
    /// - Returns: The answer.
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }

    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)

    /// Whether `value` may be sent as a field value: no control character but tab (no CR, LF or NUL), no DEL.
    /// - Parameter value: The value.
    /// - Returns: The answer.
    public static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F }
    }

    /// The header names the library sets itself and refuses from callers: message framing and the connection.
    /// `Host` is among them unless a client allows it.
    public static let framingHeaderNames: Set<String> = [
        "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer",
        "proxy-connection", "host",
    ]

    /// Whether `byte` is an RFC 3986 unreserved character: `A-Z a-z 0-9 - . _ ~`.
    /// - Parameter byte: The byte.
    /// - Returns: The answer.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `text` is made only of unreserved characters, `%` followed by two hex digits, and bytes of `extra`.
    /// - Parameters:
    ///   - text: Percent-encoded text.
    ///   - extra: Further bytes allowed as they are, such as `&` and `=` between form fields.
    /// - Returns: The answer.
    public static func isPercentEncoded(_ text: String, allowing extra: Set<UInt8> = []) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, hexValue(bytes[index + 1]) != nil, hexValue(bytes[index + 2]) != nil
                else { return false }
                index += 3
            } else {
                guard isUnreserved(bytes[index]) || extra.contains(bytes[index]) else { return false }
                index += 1
            }
        }
        return true
    }

    /// The bytes `text` stands for once every `%XX` is decoded; other bytes are kept.
    /// - Parameter text: Percent-encoded text.
    /// - Returns: The decoded bytes.
    public static func percentDecoded(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return output
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
