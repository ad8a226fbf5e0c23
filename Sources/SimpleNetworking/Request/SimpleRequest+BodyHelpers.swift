import Foundation

// Bodies and queries from values: a JSON object, form fields from an Encodable or a dictionary, and query
// parameters from either (<doc:RequestsAndResponses>).
extension SimpleRequest {
    /// Sets a JSON body from a JSON object: a dictionary or an array of strings, numbers, Booleans, `NSNull`, `nil`
    /// and more of the same, as `JSONSerialization` accepts.
    ///
    /// The object is checked and encoded now, with sorted keys, since it need not be `Sendable`; an object that is
    /// not valid JSON (a `Date`, a NaN, a top-level string) makes the request fail with
    /// ``SimpleNetworkingError/invalidRequest(reason:)`` and nothing is sent. Sets `Content-Type: application/json`
    /// unless the request already sets one.
    ///
    /// ```swift
    /// api.post("/users").body(jsonObject: ["id": "123", "name": "Kevin Malone", "tags": ["sales"]])
    /// ```
    /// - Parameter object: The JSON object.
    /// - Returns: This request.
    @discardableResult
    public func body(jsonObject object: Any) -> Self {
        let reason = "the JSON object is not valid JSON (a dictionary or array of strings, numbers, Booleans and null)"
        guard JSONSerialization.isValidJSONObject(object),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else {
            state.withLock { $0.parts.body = .unusable(reason: reason) }
            return self
        }
        return body(data, contentType: .json)
    }

    /// Sets an `application/x-www-form-urlencoded` body from the properties of a value, or from a dictionary.
    ///
    /// The value is encoded now with `encoder` and must be one flat object: each property a string, a number, a
    /// Boolean, or an array of them (sent as the name repeated). `nil` properties are left out, and fields are sent
    /// in name order, percent-encoded as query parameters are. Anything else makes the request fail with
    /// ``SimpleNetworkingError/invalidRequest(reason:)`` and nothing is sent.
    ///
    /// ```swift
    /// api.post("/login").body(form: ["user": "ada", "password": password])  // password=...&user=ada
    /// ```
    /// - Parameters:
    ///   - value: The fields, as an `Encodable` value or a dictionary.
    ///   - encoder: The encoder that turns `value` into fields, for its key strategy. Default: a plain
    ///     `JSONEncoder`.
    /// - Returns: This request.
    @discardableResult
    public func body<Value: Encodable>(form value: Value, encoder: JSONEncoder = JSONEncoder()) -> Self {
        do throws(SimpleNetworkingError) {
            let fields = try FormFields.of(value, encoder: encoder)
            return body(Data(FormFields.encoded(fields).utf8), contentType: .formURLEncoded)
        } catch {
            state.withLock { $0.parts.body = .unusable(reason: error.invalidReason) }
            return self
        }
    }

    /// Appends query parameters from the properties of a value, or from a dictionary; `nil` values are left out.
    ///
    /// The same rules as ``body(form:encoder:)``: one flat object, arrays sent as the name repeated, parameters in
    /// name order, each percent-encoded so that every character arrives literally. A value that is not a flat object
    /// makes the request fail with ``SimpleNetworkingError/invalidRequest(reason:)`` and nothing is sent.
    ///
    /// ```swift
    /// api.get("/search").query(from: ["q": "cats", "limit": limit.map(String.init)])  // no limit when nil
    /// ```
    /// - Parameters:
    ///   - value: The parameters, as an `Encodable` value or a dictionary.
    ///   - encoder: The encoder that turns `value` into parameters, for its key strategy. Default: a plain
    ///     `JSONEncoder`.
    /// - Returns: This request.
    @discardableResult
    public func query<Value: Encodable>(from value: Value, encoder: JSONEncoder = JSONEncoder()) -> Self {
        do throws(SimpleNetworkingError) {
            let items = try FormFields.of(value, encoder: encoder).map { QueryItem(name: $0.name, value: $0.value) }
            state.withLock { $0.parts.queryItems.append(contentsOf: items) }
        } catch {
            state.withLock { $0.parts.buildProblem = $0.parts.buildProblem ?? error }
        }
        return self
    }
}

extension SimpleNetworkingError {
    /// The reason of an `invalidRequest`, or the description of any other error.
    fileprivate var invalidReason: String {
        if case .invalidRequest(let reason) = self { return reason }
        return String(describing: self)
    }
}
