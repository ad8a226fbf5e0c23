/// The names of a disk cache's files. None holds text of a request or response: a head is named after a digest of
/// its entry's identity, its body after the same digest and the body's number, a file being written after random
/// digits. So no key or value can reach a path, whatever it holds (`/`, `..`, NUL), and a file of another name in the
/// folder is never the cache's.
///
///     <32 hex digits>.head                   the head of an entry (CacheEntry+Format.swift)
///     <32 hex digits>.<16 hex digits>.body   its body, raw bytes; the second part is the head's body ID
///     .<16 hex digits>.tmp                   a file being written, renamed into place once complete
package enum CacheFileName {
    /// The kinds of file in a disk cache's folder.
    package enum Kind: Equatable, Sendable {
        /// An entry's head, named after the digest of its identity.
        case head(digest: String)
        /// An entry's body: the digest of its identity and the body's number.
        case body(digest: String, bodyID: UInt64)
        /// A file being written; one found when a folder is opened was left by a process that stopped.
        case temporary
    }

    /// The first 128 bits of the SHA-256 digest of `entry`'s identity (method, URL and `Vary` values), as 32
    /// lowercase hex digits.
    /// - Parameter entry: An entry.
    /// - Returns: The digest.
    package static func digest(of entry: CacheEntry) -> String {
        hex(PortableSHA256.hash(entry.identityBytes).prefix(16))
    }

    /// The name of the head file for a digest.
    /// - Parameter digest: The digest of an entry's identity.
    /// - Returns: The file name.
    package static func head(_ digest: String) -> String { digest + ".head" }

    /// The name of the body file for a digest and body number.
    /// - Parameters:
    ///   - digest: The digest of an entry's identity.
    ///   - bodyID: The body's number.
    /// - Returns: The file name.
    package static func body(_ digest: String, bodyID: UInt64) -> String { digest + "." + hex(bodyID) + ".body" }

    /// A new name for a file being written.
    static func temporary() -> String { "." + hex(UInt64.random(in: .min ... .max)) + ".tmp" }

    /// What a name in the folder is.
    /// - Parameter name: A file name.
    /// - Returns: The kind; `nil` for any name the cache does not write, which it leaves alone.
    package static func kind(of name: String) -> Kind? {
        let bytes = Array(name.utf8)
        if bytes.count == 37, name.hasSuffix(".head"), isHex(bytes[0..<32]) {
            return .head(digest: String(decoding: bytes[0..<32], as: UTF8.self))
        }
        if bytes.count == 54, name.hasSuffix(".body"), bytes[32] == UInt8(ascii: "."), isHex(bytes[0..<32]),
            isHex(bytes[33..<49]), let bodyID = UInt64(String(decoding: bytes[33..<49], as: UTF8.self), radix: 16)
        {
            return .body(digest: String(decoding: bytes[0..<32], as: UTF8.self), bodyID: bodyID)
        }
        if bytes.count == 21, bytes[0] == UInt8(ascii: "."), name.hasSuffix(".tmp"), isHex(bytes[1..<17]) {
            return .temporary
        }
        return nil
    }

    /// Lowercase hex digits only: the cache writes no other.
    private static func isHex(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
        }
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// 16 hex digits, most significant first.
    static func hex(_ value: UInt64) -> String {
        hex((0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) })
    }
}
