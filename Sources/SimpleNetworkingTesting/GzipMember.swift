import Foundation

/// Builds gzip members from hand-written deflate bits, for the compression bombs the size-limit tests and
/// `transport-probe` send (package-wide, not public API).
package enum GzipMember {
    /// A gzip member around `deflate`: the fixed ten-byte header, the compressed bytes, then the CRC-32 and the
    /// decoded size (modulo 2^32), both little-endian.
    package static func wrapping(_ deflate: [UInt8], crc32: UInt32, decodedSize: Int) -> Data {
        var data = Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0x03])
        data.append(contentsOf: deflate)
        for value in [crc32, UInt32(truncatingIfNeeded: decodedSize)] {
            data.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        return data
    }
}

/// Collects deflate's bits into bytes, least significant bit first.
package struct DeflateBitWriter {
    private var bytes: [UInt8] = []
    private var pending: UInt64 = 0
    private var count = 0

    /// An empty writer.
    package init() {}

    /// Writes `value`'s low `bitCount` bits, least significant first (header fields, extra bits, and Huffman codes
    /// already bit-reversed).
    package mutating func write(_ value: UInt64, count bitCount: Int) {
        pending |= value << count
        count += bitCount
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: pending))
            pending >>= 8
            count -= 8
        }
    }

    /// Writes a Huffman code, most significant bit first.
    package mutating func writeCode(_ code: UInt64, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            write((code >> UInt64(shift)) & 1, count: 1)
        }
    }

    /// The bytes, with the last partial byte flushed.
    package var finished: [UInt8] { count == 0 ? bytes : bytes + [UInt8(truncatingIfNeeded: pending)] }
}
