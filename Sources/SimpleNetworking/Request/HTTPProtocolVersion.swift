/// The HTTP version a response came over: HTTP/1.1 or HTTP/2, as the transport saw it on the wire.
///
/// Named apart from SwiftNIO's `HTTPVersion` and AsyncHTTPClient's `HTTPClient.Configuration.HTTPVersion`, as the
/// module's name is also the client's type name and so cannot tell them apart.
public struct HTTPProtocolVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version: 1 for HTTP/1.1, 2 for HTTP/2.
    public let major: Int
    /// The minor version: 1 for HTTP/1.1, 0 for HTTP/2.
    public let minor: Int

    /// A version from its numbers.
    /// - Parameters:
    ///   - major: The major version.
    ///   - minor: The minor version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http10 = HTTPProtocolVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http11 = HTTPProtocolVersion(major: 1, minor: 1)
    /// HTTP/2.
    public static let http2 = HTTPProtocolVersion(major: 2, minor: 0)
    /// HTTP/3.
    public static let http3 = HTTPProtocolVersion(major: 3, minor: 0)

    /// "HTTP/1.1", or "HTTP/2" for a major version from 2 with minor 0.
    public var description: String {
        major >= 2 && minor == 0 ? "HTTP/\(major)" : "HTTP/\(major).\(minor)"
    }
}
