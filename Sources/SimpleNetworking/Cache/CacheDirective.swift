/// One directive of a `Cache-Control` or `Pragma` field, as the tolerant reader of ``CacheDirective/parse(_:)``
/// found it: a name and what followed it.
///
/// The grammar (RFC 9111 section 5.2) is `token [ "=" ( token / quoted-string ) ]`, in a comma-separated list. The
/// reader takes any bytes and never traps; what does not fit the grammar is kept as ``Argument/malformed`` for the
/// directive it belongs to, so that the rules can read it in the most restrictive way (RFC 9111 section 4.2.1).
package struct CacheDirective: Sendable, Equatable {
    /// What followed a directive's name.
    package enum Argument: Sendable, Equatable {
        /// Nothing: `no-store`.
        case none
        /// A token: `max-age=60` holds `60`.
        case token(String)
        /// A quoted string, unescaped: `max-age="60"` holds `60`.
        case quoted(String)
        /// Something the grammar does not allow: whitespace around `=`, an empty value, an unterminated quoted
        /// string, or text after the value.
        case malformed

        /// The argument's text for a token or a quoted string; `nil` for none or malformed.
        package var text: String? {
            switch self {
            case .token(let text), .quoted(let text): text
            case .none, .malformed: nil
            }
        }
    }

    /// The name, in ASCII lower case: directive names are compared without regard to case.
    package var name: String
    /// What followed the name.
    package var argument: Argument

    /// Creates a directive.
    /// - Parameters:
    ///   - name: The name, already in lower case.
    ///   - argument: What followed it.
    package init(name: String, argument: Argument) {
        self.name = name
        self.argument = argument
    }

    /// The directives of every field line in `lines`, in order, as one list (field lines of one name combine with
    /// commas, RFC 9110 section 5.3). An element whose name is not a token (it starts with a byte no token holds) is
    /// skipped; any bytes are read without trapping.
    /// - Parameter lines: The field values, one per field line.
    /// - Returns: The directives.
    package static func parse(_ lines: some Sequence<String>) -> [CacheDirective] {
        var directives: [CacheDirective] = []
        for line in lines {
            // Read in place: a field value is a native string, so its bytes need no copy.
            var line = line
            line.withUTF8 { bytes in
                var reader = Reader(bytes)
                while let directive = reader.next() {
                    directives.append(directive)
                }
            }
        }
        return directives
    }

    /// Walks one field line's bytes, one list element at a time.
    private struct Reader {
        private let bytes: UnsafeBufferPointer<UInt8>
        private var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        /// The next directive, or `nil` at the end of the line.
        mutating func next() -> CacheDirective? {
            while true {
                skip { $0 == .space || $0 == .tab || $0 == .comma }
                guard index < bytes.count else { return nil }
                let name = take(while: CacheDirective.isTokenByte)
                guard !name.isEmpty else {
                    skipElement()
                    continue
                }
                let argument = readArgument()
                return CacheDirective(
                    name: Self.lowercasedText(name), argument: argument)
            }
        }

        /// The bytes as text in ASCII lowercase; without a copy of the bytes when they are lowercase already, as
        /// directive names nearly always are.
        private static func lowercasedText(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
            guard bytes.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
                return String(decoding: bytes, as: UTF8.self)
            }
            return String(decoding: bytes.map(asciiLowercased), as: UTF8.self)
        }

        /// The argument after a name, and the rest of the element: anything but whitespace before the next comma
        /// makes it malformed.
        private mutating func readArgument() -> Argument {
            var argument = Argument.none
            if index < bytes.count, bytes[index] == .equals {
                index += 1
                if index < bytes.count, bytes[index] == .quote {
                    argument = readQuoted().map(Argument.quoted) ?? .malformed
                } else {
                    let token = take(while: CacheDirective.isTokenByte)
                    argument = token.isEmpty ? .malformed : .token(String(decoding: token, as: UTF8.self))
                }
            }
            skip { $0 == .space || $0 == .tab }
            if index < bytes.count, bytes[index] != .comma {
                argument = .malformed
                skipElement()
            }
            return argument
        }

        /// A quoted string from its opening quote, with its quoted pairs unescaped; `nil` when it never ends.
        private mutating func readQuoted() -> String? {
            index += 1
            var content: [UInt8] = []
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == .quote { return String(decoding: content, as: UTF8.self) }
                if byte == .backslash, index < bytes.count {
                    content.append(bytes[index])
                    index += 1
                } else {
                    content.append(byte)
                }
            }
            return nil
        }

        /// Moves past the rest of an element: to the next comma that is not inside a quoted string.
        private mutating func skipElement() {
            var quoted = false
            while index < bytes.count {
                let byte = bytes[index]
                if quoted, byte == .backslash {
                    index = min(index + 2, bytes.count)
                    continue
                }
                if byte == .quote { quoted.toggle() }
                if byte == .comma, !quoted { return }
                index += 1
            }
        }

        private mutating func skip(while predicate: (UInt8) -> Bool) {
            while index < bytes.count, predicate(bytes[index]) { index += 1 }
        }

        private mutating func take(while predicate: (UInt8) -> Bool) -> Slice<UnsafeBufferPointer<UInt8>> {
            let start = index
            skip(while: predicate)
            return bytes[start..<index]
        }
    }

    /// Whether `byte` may appear in a token (`tchar`, RFC 9110 section 5.6.2).
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        tokenBytes.contains(byte)
    }

    private static let tokenBytes = ByteSet(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
}

extension UInt8 {
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let equals = UInt8(ascii: "=")
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
}

private func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
}
