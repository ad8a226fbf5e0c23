import Foundation

/// The fields of a form body or a query, flattened from an `Encodable` value (<doc:RequestsAndResponses>).
///
/// The value is encoded with a `JSONEncoder` and must come out as one flat object: each property a string, a number,
/// a Boolean or an array of them (sent as the name repeated). `nil` properties are left out. Fields are sorted by
/// name, so the same value always gives the same text.
enum FormFields {
    /// The fields of `value`, in name order.
    /// - Throws: ``SimpleNetworkingError/invalidRequest(reason:)`` when `value` cannot be encoded, or is not a flat
    ///   object.
    static func of<Value: Encodable>(_ value: Value, encoder: JSONEncoder) throws(SimpleNetworkingError)
        -> [(name: String, value: String)]
    {
        let object: [String: Field]
        do {
            object = try JSONDecoder().decode([String: Field].self, from: encoder.encode(value))
        } catch {
            throw .invalidRequest(
                reason: "\(Value.self) is not a flat object of strings, numbers and Booleans (or arrays of them), as "
                    + "form fields and query parameters must be")
        }
        return object.sorted { $0.key < $1.key }.flatMap { name, field in field.values.map { (name, $0) } }
    }

    /// `fields` as `application/x-www-form-urlencoded` text: `name=value` pairs joined by `&`, each side
    /// percent-encoded as query parameters are, so every character arrives literally.
    static func encoded(_ fields: [(name: String, value: String)]) -> String {
        fields.map { URLEncoding.queryItem(SimpleRequest.QueryItem(name: $0.name, value: $0.value)) }
            .joined(separator: "&")
    }

    /// One property's values as text: none for `null`, one for a scalar, one per element for an array.
    private struct Field: Decodable {
        let values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                values = []
            } else if let list = try? container.decode([Scalar?].self) {
                values = list.compactMap { $0?.text }
            } else {
                values = [try container.decode(Scalar.self).text]
            }
        }
    }

    /// A string, a number or a Boolean, as text: `true`, `42`, `2.5`.
    private struct Scalar: Decodable {
        let text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let bool = try? container.decode(Bool.self) {
                text = bool ? "true" : "false"
            } else if let integer = try? container.decode(Int64.self) {
                text = String(integer)
            } else if let number = try? container.decode(Double.self) {
                text = String(number)
            } else {
                text = try container.decode(String.self)
            }
        }
    }
}
