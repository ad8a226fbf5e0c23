/// One fuzz input, and the ways targets read structure out of it.
///
/// Targets that take several values read them as ``fields``: the bytes after the ``selector`` byte, split at `0xFF`.
/// `0xFF` never occurs in UTF-8, so a field can still hold any character, line feeds and NUL included, and seed
/// files stay readable text with `\xff` between values.
public struct FuzzInput {
    /// Every byte of the input.
    public let bytes: [UInt8]

    /// Copies the bytes libFuzzer passes.
    /// - Parameters:
    ///   - data: The first byte; `nil` for an empty input.
    ///   - count: The number of bytes.
    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    }

    /// The whole input as text; invalid UTF-8 becomes U+FFFD, as `String(decoding:as:)` makes it from server bytes.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The first byte, which targets use to choose a variant (a URL, a method, an option); 0 for an empty input.
    public var selector: UInt8 { bytes.first ?? 0 }

    /// The bytes after the selector, split at every `0xFF`, each decoded as ``text`` is. At least one field.
    public var fields: [String] {
        bytes.dropFirst().split(separator: 0xFF, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether bit `index` (0-7) of the selector is set.
    /// - Parameter index: The bit, 0 for the lowest.
    /// - Returns: The bit's value.
    public func flag(_ index: Int) -> Bool {
        selector & (1 << UInt8(index & 7)) != 0
    }
}
