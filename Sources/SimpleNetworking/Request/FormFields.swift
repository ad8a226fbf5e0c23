import Foundation

/// The fields of a form body or a query, flattened from an `Encodable` value or from pairs of names and values
/// (<doc:RequestsAndResponses>).
///
/// A value is encoded with a `JSONEncoder` and must come out as one flat object: each property a string, a number,
/// a Boolean or an array of them (sent as ``QueryArrayEncoding`` says). `nil` properties are left out. Fields of a
/// value are sorted by name, so the same value always gives the same text; pairs keep the caller's order.
enum FormFields {
    /// The fields of `value`, in name order, arrays as the name repeated.
    /// - Throws: ``SimpleNetworkingError/invalidRequest(reason:)`` when `value` cannot be encoded, or is not a flat
    ///   object.
    static func of<Value: Encodable>(_ value: Value, encoder: JSONEncoder) throws(SimpleNetworkingError)
        -> [(name: String, value: String)]
    {
        try flattened(properties(of: value, encoder: encoder), arrays: .repeatedName, booleans: .literal)
    }

    /// The properties of `value`, in name order, each with its values.
    static func properties<Value: Encodable>(of value: Value, encoder: JSONEncoder) throws(SimpleNetworkingError)
        -> [(name: String, field: Field)]
    {
        let object: [String: Field]
        do {
            object = try JSONDecoder().decode([String: Field].self, from: encoder.encode(value))
        } catch {
            throw .invalidRequest(
                reason: "\(Value.self) is not a flat object of strings, numbers and Booleans (or arrays of them), as "
                    + "form fields and query parameters must be")
        }
        return object.sorted { $0.key < $1.key }.map { (name: $0.key, field: $0.value) }
    }

    /// The values of one parameter given on its own, encoded with `encoder` (for its date strategy, say).
    /// - Throws: ``SimpleNetworkingError/invalidRequest(reason:)`` when the value is not a string, a number, a
    ///   Boolean or an array of them.
    static func field(named name: String, of value: any Encodable, encoder: JSONEncoder) throws(SimpleNetworkingError)
        -> Field
    {
        do {
            let object = try JSONDecoder().decode([String: Field].self, from: encoder.encode(Wrapped(value: value)))
            if let field = object[Wrapped.key] { return field }
        } catch {}
        throw .invalidRequest(
            reason: "the query parameter '\(name)' is a \(type(of: value)), not a string, number or Boolean (or an "
                + "array of them)")
    }

    /// `properties` as name and value pairs, in order: a scalar as its name, an array as `arrays` says.
    static func flattened(
        _ properties: [(name: String, field: Field)], arrays: QueryArrayEncoding, booleans: QueryBoolEncoding
    ) -> [(name: String, value: String)] {
        properties.flatMap { name, field -> [(name: String, value: String)] in
            let texts = field.values.map { $0.text(booleans: booleans) }
            guard field.isList else { return texts.map { (name, $0) } }
            switch arrays {
            case .repeatedName: return texts.map { (name, $0) }
            case .brackets: return texts.map { (name + "[]", $0) }
            case .indexed: return texts.enumerated().map { (name + "[\($0.offset)]", $0.element) }
            }
        }
    }

    /// `fields` as `application/x-www-form-urlencoded` text: `name=value` pairs joined by `&`, each side
    /// percent-encoded as query parameters are, so every character arrives literally.
    static func encoded(_ fields: [(name: String, value: String)]) -> String {
        fields.map { URLEncoding.queryItem(SimpleRequest.QueryItem(name: $0.name, value: $0.value)) }
            .joined(separator: "&")
    }

    /// One property's values: none for `null`, one for a scalar, one per element for an array (whose `nil` elements
    /// are left out).
    struct Field: Decodable {
        let values: [Scalar]
        /// Whether the property is an array, named by ``QueryArrayEncoding`` even with one element.
        let isList: Bool

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                (values, isList) = ([], false)
            } else if let list = try? container.decode([Scalar?].self) {
                (values, isList) = (list.compactMap { $0 }, true)
            } else {
                (values, isList) = ([try container.decode(Scalar.self)], false)
            }
        }
    }

    /// A string, a number or a Boolean: `true`, `42`, `2.5`.
    struct Scalar: Decodable {
        private let text: String
        private let bool: Bool?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) {
                (text, self.bool) = (bool ? "true" : "false", bool)
            } else if let integer = try? container.decode(Int64.self) {
                (text, bool) = (String(integer), nil)
            } else if let number = try? container.decode(Double.self) {
                (text, bool) = (String(number), nil)
            } else {
                (text, bool) = (try container.decode(String.self), nil)
            }
        }

        /// The value as text, a Boolean as `booleans` says.
        func text(booleans: QueryBoolEncoding) -> String {
            guard let bool, booleans == .numeric else { return text }
            return bool ? "1" : "0"
        }
    }

    /// One value under a known key, so that any `Encodable` (a string, a date, an array) encodes as an object the
    /// decoding above reads.
    private struct Wrapped: Encodable {
        static let key = "value"
        let value: any Encodable

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(value, forKey: .value)
        }

        private enum Key: String, CodingKey { case value }
    }
}

/// How a query sends an array (``SimpleRequest/query(_:arrays:booleans:encoder:)``): `ids` with `[1, 2]`.
public enum QueryArrayEncoding: Sendable, Hashable {
    /// `ids=1&ids=2`, the name repeated: the default, and what Alamofire calls `noBrackets`.
    case repeatedName
    /// `ids[]=1&ids[]=2`, as Rails and PHP read arrays; the brackets are percent-encoded on the wire
    /// (`ids%5B%5D=1`), which such servers decode.
    case brackets
    /// `ids[0]=1&ids[1]=2`, each element with its index (Alamofire's `indexInBrackets`), percent-encoded the same way.
    case indexed
}

/// How a query sends a Boolean (``SimpleRequest/query(_:arrays:booleans:encoder:)``).
public enum QueryBoolEncoding: Sendable, Hashable {
    /// `true` and `false`: the default.
    case literal
    /// `1` and `0`.
    case numeric
}
