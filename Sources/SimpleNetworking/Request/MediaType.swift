/// A media type for the `Accept` and `Content-Type` headers: an open set with common members.
public struct MediaType: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The media type as written in a header, for example `"application/json"`.
    public let rawValue: String

    /// Creates a media type from its header form.
    /// - Parameter rawValue: The media type, with parameters if any.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a media type from a string literal.
    /// - Parameter value: The media type.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The media type as written in a header.
    public var description: String { rawValue }

    /// `application/json`.
    public static let json: MediaType = "application/json"
    /// `text/plain; charset=utf-8`.
    public static let plainText: MediaType = "text/plain; charset=utf-8"
    /// `application/x-www-form-urlencoded`.
    public static let formURLEncoded: MediaType = "application/x-www-form-urlencoded"
    /// `application/octet-stream`.
    public static let octetStream: MediaType = "application/octet-stream"
    /// `*/*`.
    public static let any: MediaType = "*/*"
}
