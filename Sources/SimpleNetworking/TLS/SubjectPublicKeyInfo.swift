import Foundation

/// The DER `SubjectPublicKeyInfo` of a public key (RFC 5280, section 4.1.2.7), rebuilt from the key's raw bytes: what
/// a ``PublicKeyPins`` digest is taken of.
///
/// The Security framework hands out a certificate's key only as its raw bytes (the contents of the
/// `SubjectPublicKeyInfo`'s BIT STRING), so URLSession on Apple platforms puts the algorithm identifier back around
/// them before hashing. Pure, so that the tests run it on every platform; the hashing stays with the transport.
package enum SubjectPublicKeyInfo {
    /// The kinds of key whose `SubjectPublicKeyInfo` can be rebuilt; any other kind never matches a pin.
    package enum KeyType: Sendable, Hashable {
        /// RSA, of any size: the raw bytes are a PKCS #1 `RSAPublicKey` (a DER `SEQUENCE`).
        case rsa
        /// An elliptic-curve key on P-256, P-384 or P-521 (told apart by size): the raw bytes are the uncompressed
        /// point, `04`, then X and Y.
        case ellipticCurve
    }

    /// The `SubjectPublicKeyInfo` DER of a key.
    /// - Parameters:
    ///   - keyType: The key's algorithm.
    ///   - keySizeInBits: The key's size: the modulus of an RSA key (not checked, the bytes say it), the curve of an
    ///     elliptic-curve key (256, 384 or 521).
    ///   - key: The raw key bytes, as the Security framework's external representation of a public key holds them.
    /// - Returns: The DER bytes, or `nil` for a curve other than the three, or bytes not in the form the type has.
    package static func der(keyType: KeyType, keySizeInBits: Int, key: Data) -> Data? {
        let algorithm: [UInt8]
        switch keyType {
        case .rsa:
            guard key.count > 2, key.first == 0x30 else { return nil }
            algorithm = rsaEncryption + [0x05, 0x00]  // parameters: NULL
        case .ellipticCurve:
            guard let curve = curves[keySizeInBits], key.count == 1 + 2 * ((keySizeInBits + 7) / 8),
                key.first == 0x04
            else { return nil }
            algorithm = ecPublicKey + curve  // parameters: the named curve
        }
        let identifier = element(0x30, algorithm)
        let bitString = element(0x03, [0x00] + Array(key))  // no unused bits
        return Data(element(0x30, identifier + bitString))
    }

    /// Whether a certificate chain satisfies a host's pins: one of its keys' `SubjectPublicKeyInfo` has a SHA-256
    /// digest among `pins`.
    /// - Parameters:
    ///   - keys: The `SubjectPublicKeyInfo` of each certificate's key in the verified chain; `nil` for a key that
    ///     could not be rebuilt, which never matches.
    ///   - pins: The host's pinned digests (``TLSPolicy/pinnedKeyDigests(forHost:)``); empty means no pins apply.
    ///   - sha256: The platform's SHA-256.
    /// - Returns: `true` when no pins apply or one key matches.
    package static func chainMatches(_ keys: [Data?], pins: Set<Data>, sha256: (Data) -> Data) -> Bool {
        guard !pins.isEmpty else { return true }
        return keys.contains { key in key.map { pins.contains(sha256($0)) } ?? false }
    }

    /// The OID 1.2.840.113549.1.1.1, `rsaEncryption`.
    private static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// The OID 1.2.840.10045.2.1, `id-ecPublicKey`.
    private static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// The named curves' OIDs by key size: `prime256v1` (1.2.840.10045.3.1.7), `secp384r1` (1.3.132.0.34),
    /// `secp521r1` (1.3.132.0.35).
    private static let curves: [Int: [UInt8]] = [
        256: [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07],
        384: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22],
        521: [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23],
    ]

    /// A DER element: the tag, the length (short form below 128, else long form), the contents.
    private static func element(_ tag: UInt8, _ contents: [UInt8]) -> [UInt8] {
        var length: [UInt8] = []
        var count = contents.count
        if count < 0x80 {
            length = [UInt8(count)]
        } else {
            while count > 0 {
                length.insert(UInt8(count & 0xFF), at: 0)
                count >>= 8
            }
            length.insert(0x80 | UInt8(length.count), at: 0)
        }
        return [tag] + length + contents
    }
}
