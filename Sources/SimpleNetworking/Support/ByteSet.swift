/// A set of byte values answered by table lookup: the per-byte checks of URL encoding and header validation run on
/// every request, so they avoid hashing.
struct ByteSet: Sendable {
    private let members: [Bool]

    init<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        var members = [Bool](repeating: false, count: 256)
        for byte in bytes { members[Int(byte)] = true }
        self.members = members
    }

    func contains(_ byte: UInt8) -> Bool {
        members[Int(byte)]
    }

    func union<Bytes: Sequence>(_ bytes: Bytes) -> ByteSet where Bytes.Element == UInt8 {
        ByteSet((0...255).filter { contains(UInt8($0)) }.map(UInt8.init) + Array(bytes))
    }
}
