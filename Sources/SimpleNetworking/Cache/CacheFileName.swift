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
        hex(SHA256Digest.hash(entry.identityBytes).prefix(16))
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

/// SHA-256 (FIPS 180-4), for naming cache files: the library depends on no package and Linux has no system digest
/// it can reach, and it is small. Not used for anything secret.
package enum SHA256Digest {
    /// The digest of `message`.
    /// - Parameter message: Any bytes.
    /// - Returns: 32 bytes.
    package static func hash(_ message: [UInt8]) -> [UInt8] {
        var state: [UInt32] = [
            0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
        ]
        var padded = message
        padded.append(0x80)
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }

        var schedule = [UInt32](repeating: 0, count: 64)
        for blockStart in stride(from: 0, to: padded.count, by: 64) {
            for index in 0..<16 {
                let offset = blockStart + index * 4
                schedule[index] =
                    UInt32(padded[offset]) << 24 | UInt32(padded[offset + 1]) << 16 | UInt32(padded[offset + 2]) << 8
                    | UInt32(padded[offset + 3])
            }
            for index in 16..<64 {
                let early = schedule[index - 15]
                let late = schedule[index - 2]
                let sigma0 = rotate(early, 7) ^ rotate(early, 18) ^ (early >> 3)
                let sigma1 = rotate(late, 17) ^ rotate(late, 19) ^ (late >> 10)
                schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
            }
            var (a, b, c, d, e, f, g, h) = (
                state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7]
            )
            for index in 0..<64 {
                let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
                let choice = (e & f) ^ (~e & g)
                let first = h &+ sum1 &+ choice &+ roundConstants[index] &+ schedule[index]
                let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let second = sum0 &+ majority
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ first, c, b, a, first &+ second)
            }
            for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] = state[index] &+ value }
        }
        return state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32(24 - $0 * 8)) } }
    }

    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        value >> count | value << (32 - count)
    }

    /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4, 4.2.2).
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}
