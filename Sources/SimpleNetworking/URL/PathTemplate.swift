/// A path with placeholders, such as `"/users/{userID}/posts/{postID}"`, filled from values.
///
/// Each value becomes exactly one path segment, or part of one: every byte but the unreserved ones
/// (`A-Z a-z 0-9 - . _ ~`) is percent-encoded, so `a/b?c d` is sent as `a%2Fb%3Fc%20d` and `%` as `%25`. A value
/// can neither add a segment nor climb out of the base path: an empty value, and a value that is or holds a `.` or
/// `..` segment between slashes or backslashes (`..`, `../W`, which a server that decodes `%2F` would follow), are
/// refused. A
/// placeholder without a value, a value for no placeholder, and an unbalanced brace are refused too; each is a
/// ``SimpleNetworkingError/invalidURL(reason:)`` thrown before anything is sent.
///
/// ```swift
/// let template: PathTemplate = "/users/{userID}"
/// let path = try template.path(with: ["userID": "42"])  // "/users/42"
/// ```
public struct PathTemplate: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The template as written, for example `"/users/{userID}"`.
    public let text: String

    /// Creates a template.
    /// - Parameter text: The path, with each placeholder written as `{name}`; a literal brace is not allowed. Text
    ///   outside placeholders is used as a plain path is (it may carry a query after `?`).
    public init(_ text: String) {
        self.text = text
    }

    /// Creates a template from a string literal.
    /// - Parameter value: The path with its placeholders.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The template as written.
    public var description: String { text }

    /// The names of the placeholders, in order.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)`` when a brace is unbalanced or a name is empty.
    public func placeholders() throws(SimpleNetworkingError) -> [String] {
        try pieces().compactMap { piece in
            if case .placeholder(let name) = piece { return name }
            return nil
        }
    }

    /// The path with every placeholder replaced by its value, percent-encoded as one segment.
    /// - Parameter values: A value for each placeholder, by name, and for no other name.
    /// - Returns: The path, ready to be appended to a base URL.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)`` for a missing or unknown placeholder, an empty value,
    ///   a value that is or holds a `.` or `..` segment (`..`, `../W`, `a/./b`), or an unbalanced brace. Reasons name
    ///   placeholders, never values.
    public func path(with values: [String: String]) throws(SimpleNetworkingError) -> String {
        let pieces = try pieces()
        var used: Set<String> = []
        var path = ""
        for piece in pieces {
            switch piece {
            case .literal(let text):
                path += text
            case .placeholder(let name):
                guard let value = values[name] else {
                    throw .invalidURL(reason: "the path template has no value for the placeholder {\(name)}")
                }
                guard !value.isEmpty else {
                    throw .invalidURL(
                        reason: "the value for the placeholder {\(name)} is empty, which would change the path's "
                            + "segments")
                }
                guard !Self.holdsDotSegment(value) else {
                    throw .invalidURL(
                        reason: "the value for the placeholder {\(name)} would leave the base path: it is, or holds "
                            + "between slashes or backslashes, a \".\" or \"..\" segment, which a server that decodes "
                            + "%2F reads as one")
                }
                used.insert(name)
                path += URLEncoding.encode(value, allowing: URLEncoding.unreservedBytes, keepEscapes: false)
            }
        }
        if let unknown = values.keys.filter({ !used.contains($0) }).sorted().first {
            throw .invalidURL(reason: "the path template has no placeholder {\(unknown)}")
        }
        return path
    }

    /// Whether `value`, split at `/` and `\` (which it is encoded to `%2F` and `%5C`, but which servers may decode),
    /// has a `.` or `..` piece.
    private static func holdsDotSegment(_ value: String) -> Bool {
        value.utf8.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }
            .contains { $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }
    }

    /// A run of literal text, or a placeholder's name.
    enum Piece: Equatable {
        case literal(String)
        case placeholder(String)
    }

    /// The template split at its braces.
    func pieces() throws(SimpleNetworkingError) -> [Piece] {
        var pieces: [Piece] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{" else {
                throw .invalidURL(reason: "the path template has a '}' without a '{'")
            }
            if open > rest.startIndex { pieces.append(.literal(String(rest[..<open]))) }
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { $0 == "{" || $0 == "}" }), rest[close] == "}"
            else { throw .invalidURL(reason: "the path template has a '{' without a matching '}'") }
            let name = String(rest[afterOpen..<close])
            guard !name.isEmpty else { throw .invalidURL(reason: "the path template has an empty placeholder {}") }
            pieces.append(.placeholder(name))
            rest = rest[rest.index(after: close)...]
        }
        if !rest.isEmpty { pieces.append(.literal(String(rest))) }
        return pieces
    }
}
