/// A request type with an associated response: the type states its method and path template once, statically,
/// and each value carries the parameters as properties.
///
/// It is an ``Endpoint`` whose ``Endpoint/method`` and ``Endpoint/path`` come from ``httpMethod`` and
/// ``pathTemplate``; everything else (``Endpoint/pathValues``, ``Endpoint/query``, ``Endpoint/headers``,
/// ``Endpoint/body``, ``Endpoint/configure(_:)``, ``Endpoint/decode(_:decoder:)``) can be overridden one at a time
/// without restating the rest.
///
/// ```swift
/// struct GetUser: TypedRequest {
///     static let httpMethod: HTTPMethod = .get
///     static let pathTemplate: PathTemplate = "/users/{userID}"
///     typealias Response = User
///
///     var userID: Int
///     var pathValues: [String: String] { ["userID": "\(userID)"] }
/// }
///
/// let user = try await api.send(GetUser(userID: 42))
/// ```
public protocol TypedRequest: Endpoint {
    /// The HTTP method of every request of this type.
    static var httpMethod: HTTPMethod { get }
    /// The path template of every request of this type, filled from ``Endpoint/pathValues``.
    static var pathTemplate: PathTemplate { get }
}

extension TypedRequest {
    /// ``httpMethod``.
    public var method: HTTPMethod { Self.httpMethod }
    /// The text of ``pathTemplate``.
    public var path: String { Self.pathTemplate.text }
}
