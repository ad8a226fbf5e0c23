import Foundation
import SimpleNetworkingTesting

/// A gzip member of `1 + 258 * repeats` zero bytes at about 1,000:1, as dense as deflate allows.
///
/// One dynamic-Huffman block whose length/literal code gives symbol 285 (length 258) one bit and whose distance code
/// gives distance 1 one bit, so each 258 zero bytes cost two bits: 1 GiB of zeros is about 1 MB. The CRC-32 in the
/// trailer is left at zero: computing it over a gigabyte would dominate the probe, and a size limit or timeout stops
/// the transfer long before the trailer is checked.
enum DynamicGzipBomb {
    /// The compressed bytes for at least `decodedSize` zero bytes.
    static func make(decodedSize: Int) -> Data {
        let repeats = max(0, (decodedSize - 1 + 257) / 258)
        var bits = DeflateBitWriter()
        bits.write(1, count: 1)  // BFINAL
        bits.write(2, count: 2)  // BTYPE = 10, dynamic Huffman
        bits.write(29, count: 5)  // HLIT: 286 length/literal codes
        bits.write(0, count: 5)  // HDIST: 1 distance code
        bits.write(14, count: 4)  // HCLEN: 18 code length codes
        // Code length code lengths, in the order 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1:
        // symbol 18 (a run of zeros) gets 1 bit, symbols 1 and 2 get 2 bits.
        for length in [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2] {
            bits.write(UInt64(length), count: 3)
        }
        // Canonical code length codes: 18 -> 0, 1 -> 10, 2 -> 11.
        func lengthTwo() { bits.writeCode(0b11, count: 2) }
        func lengthOne() { bits.writeCode(0b10, count: 2) }
        func zeros(_ count: Int) {
            bits.writeCode(0, count: 1)
            bits.write(UInt64(count - 11), count: 7)
        }
        lengthTwo()  // literal 0
        zeros(138)  // literals 1...138
        zeros(117)  // literals 139...255
        lengthTwo()  // 256, end of block
        zeros(28)  // 257...284
        lengthOne()  // 285, length 258
        lengthOne()  // distance code 0, distance 1
        // Canonical length/literal codes: 285 -> 0, literal 0 -> 10, end of block -> 11. Distance 1 -> 0.
        bits.writeCode(0b10, count: 2)
        for _ in 0..<repeats { bits.write(0, count: 2) }
        bits.writeCode(0b11, count: 2)
        return GzipMember.wrapping(bits.finished, crc32: 0, decodedSize: 1 + 258 * repeats)
    }
}
