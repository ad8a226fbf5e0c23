import Foundation

/// One HTTP request as a transport sends it: the library's own value, independent of any HTTP engine.
///
/// The client builds it for each hop, already validated and with every header merged in; a transport sends it as it
/// is. Repeated header fields are kept as separate fields.
public struct HTTPRequest: Sendable, Hashable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute `http` or `https` URL.
    public var url: URL
    /// The header fields, in order, repeated names kept apart. The transport frames the body itself: the client never
    /// sets `Content-Length` or `Transfer-Encoding`.
    public var headers: HTTPHeaders
    /// The body, or `nil` for none.
    public var body: Data?
    /// A file whose bytes are the body, read as they are sent rather than loaded into memory; used instead of
    /// ``body`` when set, and only by ``HTTPTransport/send(_:options:transfer:)``. Default: `nil`.
    public var bodyFile: URL?

    /// Creates a request.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The absolute URL.
    ///   - headers: The header fields. Default: none.
    ///   - body: The body. Default: none.
    ///   - bodyFile: A file to send as the body instead, streamed from disk. Default: none.
    public init(method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: Data? = nil, bodyFile: URL? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
    }
}
