import Foundation
import SimpleNetworking

extension CacheConformance {
    /// Header fields as name and value pairs, in order; a name given twice is sent as two lines by the server, and
    /// as one line joined with `, ` by the client.
    public typealias Fields = [(name: String, value: FieldValue)]

    /// A header field's value: text as it is, or an HTTP-date some seconds from the start of the case.
    ///
    /// A case starts on its client's ``TestClock`` at some moment; `.date(-10)` is the IMF-fixdate ten seconds before
    /// it, `.date(3)` three seconds after. A string literal is ``text(_:)``.
    public enum FieldValue: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The text, sent as it is.
        case text(String)
        /// The IMF-fixdate this many seconds from the start of the case.
        case date(TimeInterval)

        /// A literal as ``text(_:)``.
        /// - Parameter value: The text.
        public init(stringLiteral value: String) {
            self = .text(value)
        }

        /// The text, or `date(±seconds)`.
        public var description: String {
            switch self {
            case .text(let text): text
            case .date(let seconds): "date(\(seconds))"
            }
        }

        /// The value as sent, for a case that started at `start`.
        /// - Parameter start: When the case started, on its clock.
        /// - Returns: The field value.
        func rendered(from start: Date) -> String {
            switch self {
            case .text(let text): text
            case .date(let seconds): CacheDate.imfFixdate(start.addingTimeInterval(seconds)) ?? "not a date"
            }
        }
    }

    /// One case: requests sent in order by one client with a cache, what the server answers to each, and what must
    /// happen.
    public struct Case: Sendable, CustomStringConvertible {
        /// The case's name: the id of the http-tests/cache-tests case whose facts it restates, or a name of ours (with
        /// the same prefix) for a case that suite has not.
        public var id: String
        /// The requests, in order.
        public var steps: [Step]

        /// Creates a case.
        /// - Parameters:
        ///   - id: Its name.
        ///   - steps: Its requests, in order.
        public init(_ id: String, steps: [Step]) {
            self.id = id
            self.steps = steps
        }

        /// The case's ``id``.
        public var description: String { id }
    }

    /// One request of a ``Case``, the server's answer to it, and what must happen.
    public struct Step: Sendable {
        /// Seconds that pass on the client's clock before the request is sent.
        public var wait: TimeInterval
        /// The request's method.
        public var method: String
        /// The request's path on the server.
        public var path: String
        /// The request's header fields.
        public var fields: Fields
        /// What the server answers when this request (or the background revalidation it starts) reaches it.
        public var response: ServerResponse
        /// Whether the request reaches the server, and with which conditional fields.
        public var sending: Sending
        /// What the client gets.
        public var answer: Answer
        /// The `Age` the client's response must carry, or `nil` to leave it unchecked.
        public var age: Int?
        /// Fields the client's response must carry, with these values.
        public var responseFields: Fields

        /// Creates a step.
        /// - Parameters:
        ///   - wait: Seconds that pass before the request. Default: none.
        ///   - method: The method. Default: `GET`.
        ///   - path: The path. Default: ``CacheConformance/path``.
        ///   - fields: The request's header fields.
        ///   - response: The server's answer. Default: `200` with no fields.
        ///   - sending: Whether the request reaches the server.
        ///   - answer: What the client gets.
        ///   - age: The `Age` the client's response must carry.
        ///   - responseFields: Fields the client's response must carry.
        public init(
            wait: TimeInterval = 0, method: String = "GET", path: String = CacheConformance.path, fields: Fields = [],
            response: ServerResponse = ServerResponse(), sending: Sending, answer: Answer, age: Int? = nil,
            responseFields: Fields = []
        ) {
            self.wait = wait
            self.method = method
            self.path = path
            self.fields = fields
            self.response = response
            self.sending = sending
            self.answer = answer
            self.age = age
            self.responseFields = responseFields
        }
    }

    /// What the server answers to a step's request.
    ///
    /// Its body is `response N` for step N (1-based), so that the client's body says which answer it got; nothing for
    /// a status without a body or a `HEAD`.
    public struct ServerResponse: Sendable {
        /// The status.
        public var status: Int
        /// The header fields, each line as given.
        public var fields: Fields
        /// Whether the server closes the connection instead of answering, a transport failure for the client. The
        /// transport may send the request once more before it fails (RFC 9112 section 9.3.1 allows it for an
        /// idempotent request), and the kit accepts that.
        public var closesConnection: Bool

        /// Creates an answer.
        /// - Parameters:
        ///   - status: The status. Default: `200`.
        ///   - fields: The header fields.
        public init(status: Int = 200, fields: Fields = []) {
            self.status = status
            self.fields = fields
            self.closesConnection = false
        }

        /// The server closes the connection without answering.
        public static var closed: ServerResponse {
            var response = ServerResponse()
            response.closesConnection = true
            return response
        }
    }

    /// Whether a step's request reaches the server, and with which conditional fields (`If-None-Match`,
    /// `If-Modified-Since`): those listed are sent with these values, the others not at all.
    public enum Sending: Sendable {
        /// Nothing is sent.
        case notSent
        /// The request reaches the server before the client gets its answer.
        case sent(conditions: Fields)
        /// The client gets its answer at once, and the request reaches the server afterwards, in the background. The
        /// kit waits for the client to merge the server's `304`, or to store its other answer: a step's background
        /// answer other than `304` must be one the cache stores.
        case sentInBackground(conditions: Fields)

        /// The request reaches the server without conditional fields.
        public static var sent: Sending { .sent(conditions: []) }
    }

    /// What the client gets for a step.
    public enum Answer: Sendable, Equatable {
        /// A response from `source` with `status`, whose body is the server's answer to step `bodyOfStep` (1-based),
        /// or empty when `nil`.
        case response(ResponseSource, status: Int, bodyOfStep: Int?)
        /// The request fails without a response.
        case failure
    }

    /// The path of a case's requests unless a step names another.
    public static let path = "/cached"

    /// The request field that tells the server which step a request belongs to, so that it gives that step's
    /// answer; no case's `Vary` names it.
    public static let stepFieldName = "Conformance-Step"
}
