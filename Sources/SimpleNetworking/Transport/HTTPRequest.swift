import Foundation

/// One HTTP request as a transport sends it: the library's own value, independent of any HTTP engine.
///
/// The client builds it for each hop, already validated and with every header merged in; a transport sends it as it
/// is. Repeated header fields are kept as separate fields.
public struct HTTPRequest: Sendable, Hashable {
    /// The fields of a request; two requests are equal when these are.
    private struct Fields: Sendable, Hashable {
        var method: HTTPMethod
        var url: URL
        var headers: HTTPHeaders
        var body: Data?
        var bodyFile: URL?
    }

    /// The fields, in one object shared by copies until one of them changes (copy on write). A request is copied
    /// several times on each hop (into the attempt's record, the redirect chain, the event of each step): one
    /// reference to count per copy instead of one per field (<doc:Performance>).
    ///
    /// `@unchecked Sendable`: `fields` is only written through ``HTTPRequest/update(_:)``, which first copies the
    /// object unless this value is its only holder, so an object reachable from two values or threads never changes.
    private final class Storage: @unchecked Sendable {
        var fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var storage: Storage

    /// The method.
    public var method: HTTPMethod {
        get { storage.fields.method }
        set { update { $0.method = newValue } }
    }
    /// The absolute `http` or `https` URL.
    public var url: URL {
        get { storage.fields.url }
        set { update { $0.url = newValue } }
    }
    /// The header fields, in order, repeated names kept apart. The transport frames the body itself: the client never
    /// sets `Content-Length` or `Transfer-Encoding`.
    public var headers: HTTPHeaders {
        get { storage.fields.headers }
        set { update { $0.headers = newValue } }
    }
    /// The body, or `nil` for none.
    public var body: Data? {
        get { storage.fields.body }
        set { update { $0.body = newValue } }
    }
    /// A file whose bytes are the body, read as they are sent rather than loaded into memory; used instead of
    /// ``body`` when set, and only by ``HTTPTransport/send(_:options:transfer:)``. Default: `nil`.
    public var bodyFile: URL? {
        get { storage.fields.bodyFile }
        set { update { $0.bodyFile = newValue } }
    }

    /// Creates a request.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The absolute URL.
    ///   - headers: The header fields. Default: none.
    ///   - body: The body. Default: none.
    ///   - bodyFile: A file to send as the body instead, streamed from disk. Default: none.
    public init(method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: Data? = nil, bodyFile: URL? = nil) {
        storage = Storage(Fields(method: method, url: url, headers: headers, body: body, bodyFile: bodyFile))
    }

    /// Changes the fields, on an object of this value's own.
    private mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        change(&storage.fields)
    }

    /// Whether two requests have the same fields.
    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Hashes the fields.
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }
}
