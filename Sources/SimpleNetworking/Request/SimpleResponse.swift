import Foundation

/// A complete HTTP response: status, headers and the whole body.
public struct SimpleResponse: Sendable {
    /// The fields of a response.
    private struct Fields: Sendable {
        var statusCode: Int
        var headers: HTTPHeaders
        var body: Data
        var url: URL?
        var httpVersion: HTTPProtocolVersion?
        var source = ResponseSource.network
        var attempts: [RequestAttempt] = []
        var fileURL: URL?
        var clientDecoder: JSONDecoder?
        var transformedValue: TransformedValue?
    }

    /// The fields, in one immutable object. A response is copied many times on its way to the caller (through results,
    /// the execution's record, the handlers): one reference to count per copy instead of one per field
    /// (<doc:Performance>). A change makes a new object (``changing(_:)``).
    private final class Storage: Sendable {
        let fields: Fields

        init(_ fields: Fields) {
            self.fields = fields
        }
    }

    private var storage: Storage

    /// The HTTP status code, for example `200`.
    public var statusCode: Int { storage.fields.statusCode }
    /// The response headers, looked up without regard to case.
    public var headers: HTTPHeaders { storage.fields.headers }
    /// The response body; empty when the server sent none.
    public var body: Data { storage.fields.body }
    /// The URL that answered, after any redirects.
    public var url: URL? { storage.fields.url }
    /// The HTTP version the response came over, as the transport saw it; `nil` when the transport does not say.
    public var httpVersion: HTTPProtocolVersion? {
        get { storage.fields.httpVersion }
        set { self = changing { $0.httpVersion = newValue } }
    }
    /// Where the response came from: the server, or the client's HTTP cache (``SimpleNetworking/Configuration/cache``).
    /// ``ResponseSource/network`` for every response of a client without a cache.
    public internal(set) var source: ResponseSource {
        get { storage.fields.source }
        set { self = changing { $0.source = newValue } }
    }
    /// Every attempt of the execution that produced this response, this one last.
    public internal(set) var attempts: [RequestAttempt] {
        get { storage.fields.attempts }
        set { self = changing { $0.attempts = newValue } }
    }
    /// The file the body was written to, for a response of ``SimpleRequest/download(to:resumable:)``; `nil` otherwise.
    public internal(set) var fileURL: URL? {
        get { storage.fields.fileURL }
        set { self = changing { $0.fileURL = newValue } }
    }
    /// The decoder of the client the response came through, for ``decode(_:decoder:)``; `nil` for a response made
    /// by hand, which decodes with a plain `JSONDecoder`.
    var clientDecoder: JSONDecoder? { storage.fields.clientDecoder }
    /// What the request's transform step made of this 2xx response (``SimpleRequest/decoding(_:decoder:)``,
    /// ``SimpleRequest/decode(_:decoder:on:)``): the value travels to the caller with the response, nowhere else.
    var transformedValue: Any? { storage.fields.transformedValue?.value }

    /// Creates a response, for transports and test doubles.
    /// - Parameters:
    ///   - statusCode: The HTTP status code.
    ///   - headers: The response headers.
    ///   - body: The response body.
    ///   - url: The URL that answered.
    ///   - httpVersion: The HTTP version the response came over, when the transport knows it. Default: `nil`.
    public init(
        statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil,
        httpVersion: HTTPProtocolVersion? = nil
    ) {
        storage = Storage(
            Fields(statusCode: statusCode, headers: headers, body: body, url: url, httpVersion: httpVersion))
    }

    /// Creates a response that came from `source`, in one object: the HTTP cache's answers.
    init(statusCode: Int, headers: HTTPHeaders, body: Data, url: URL?, source: ResponseSource) {
        storage = Storage(Fields(statusCode: statusCode, headers: headers, body: body, url: url, source: source))
    }

    private init(_ fields: Fields) {
        storage = Storage(fields)
    }

    /// This response with `change` made to a copy of its fields, in a new object.
    private func changing(_ change: (inout Fields) -> Void) -> SimpleResponse {
        var fields = storage.fields
        change(&fields)
        return SimpleResponse(fields)
    }

    /// This response as the execution hands it over: with the execution's attempts and the client's decoder, in one
    /// change.
    func with(attempts: [RequestAttempt], decoder: JSONDecoder? = nil, value: TransformedValue? = nil)
        -> SimpleResponse
    {
        changing { fields in
            fields.attempts = attempts
            if let decoder { fields.clientDecoder = decoder }
            if let value { fields.transformedValue = value }
        }
    }

    /// This response with another body: the whole one, once collected after its head.
    func with(body: Data) -> SimpleResponse {
        changing { $0.body = body }
    }

    /// This response without its body: the head a transport hands over first.
    var head: SimpleResponse { with(body: Data()) }

    /// Whether the status is in the 2xx range.
    public var isSuccess: Bool { (200..<300).contains(statusCode) }

    /// Whether the status is one a client may follow to its `Location`: 301, 302, 303, 307 or 308.
    var isRedirection: Bool {
        switch statusCode {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// The body as a JSON object (a dictionary), or `nil` when it is empty, not JSON, or not an object.
    ///
    /// This mirrors the common `response.json?["token"] as? String`; use ``jsonValue()`` for a thrown reason.
    public var json: [String: Any]? {
        (try? jsonValue()) as? [String: Any]
    }

    /// The body parsed as JSON of any shape (object, array, string, number, boolean or null).
    /// - Returns: The parsed value.
    /// - Throws: ``SimpleNetworkingError/decodingFailed(type:reason:response:)`` when the body is empty or not JSON.
    public func jsonValue() throws(SimpleNetworkingError) -> Any {
        guard !body.isEmpty else {
            throw .decodingFailed(type: "JSON", reason: "the response body is empty", response: self)
        }
        do {
            return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw .decodingFailed(type: "JSON", reason: "the response body is not valid JSON", response: self)
        }
    }

    /// The body as text, decoded with the charset of `Content-Type` (UTF-8 when none is named), or `nil` if it
    /// cannot be decoded.
    public var string: String? {
        String(data: body, encoding: textEncoding)
    }

    /// Decodes the body as JSON into `type`: the one decoding path of the library, which ``SimpleRequest/decode(_:decoder:on:)``,
    /// ``SimpleRequest/decoding(_:decoder:)`` and ``Endpoint`` responses all take.
    ///
    /// ```swift
    /// let user = try await api.get("/users/1").transform { try $0.decode(User.self) }.value()
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use; `nil` (the default) uses the decoder of the client the response came through
    ///     (its ``SimpleNetworking/Configuration/decoder``), or a plain `JSONDecoder` for a response made by hand.
    /// ``NoContent`` decodes from any body, an empty one included, without reading it: `decode(NoContent.self)`
    /// on a 204 returns ``NoContent`` for a plain request as for an ``Endpoint``.
    /// - Returns: The decoded value.
    /// - Throws: ``SimpleNetworkingError/decodingFailed(type:reason:response:)`` with the decoder's reason, or that
    ///   the body is empty.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder? = nil)
        throws(SimpleNetworkingError) -> T
    {
        if let nothing = NoContent() as? T { return nothing }
        let decoder = decoder ?? clientDecoder ?? JSONDecoder()
        guard !body.isEmpty else {
            throw .decodingFailed(type: "\(T.self)", reason: "the response body is empty", response: self)
        }
        do {
            return try decoder.decode(T.self, from: body)
        } catch {
            throw .decodingFailed(type: "\(T.self)", reason: Self.describe(error), response: self)
        }
    }

    private var textEncoding: String.Encoding {
        guard let contentType = headers["Content-Type"]?.lowercased(),
            let charset = contentType.split(separator: ";").lazy
                .map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { $0.hasPrefix("charset=") })?
                .dropFirst("charset=".count)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        else { return .utf8 }
        switch charset {
        case "iso-8859-1", "latin1": return .isoLatin1
        case "us-ascii", "ascii": return .ascii
        case "utf-16": return .utf16
        default: return .utf8
        }
    }

    /// A reason for a decoding failure that names the coding path, never the data.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "the body could not be decoded" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "expected \(type) at \(path(context))"
        case .valueNotFound(let type, let context):
            return "missing \(type) value at \(path(context))"
        case .keyNotFound(let key, let context):
            return "missing key '\(key.stringValue)' at \(path(context))"
        case .dataCorrupted(let context):
            return "the data is not valid JSON at \(path(context))"
        @unknown default:
            return "the body could not be decoded"
        }
    }
}

extension SimpleResponse: CustomStringConvertible {
    /// The status and body size; header values and the body are left out because they can hold secrets.
    public var description: String {
        "SimpleResponse(\(statusCode), \(body.count) bytes)"
    }
}
