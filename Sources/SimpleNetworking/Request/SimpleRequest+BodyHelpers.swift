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

// Query parameters of mixed types, in the caller's order or from a value, with a choice of array and Boolean forms.
extension SimpleRequest {
    /// Appends query parameters from pairs of names and values of any `Encodable` type, in the order written; `nil`
    /// values are left out.
    ///
    /// Each value must encode to a string, a number, a Boolean or an array of them; arrays are sent as `arrays`
    /// says, Booleans as `booleans` says, every character percent-encoded so that it arrives literally. Anything else
    /// (an object, say) makes the request fail with ``SimpleNetworkingError/invalidRequest(reason:)`` and nothing is
    /// sent.
    ///
    /// ```swift
    /// api.get("/search").query(["q": "cats", "page": 2, "ids": [4, 8]], arrays: .brackets)
    /// // ?q=cats&page=2&ids%5B%5D=4&ids%5B%5D=8, that is ids[]=4&ids[]=8
    /// ```
    /// - Parameters:
    ///   - parameters: The names and values, sent in this order; a dictionary literal is read as pairs.
    ///   - arrays: How an array is sent. Default: ``QueryArrayEncoding/repeatedName`` (`ids=4&ids=8`).
    ///   - booleans: How a Boolean is sent. Default: ``QueryBoolEncoding/literal`` (`true`, `false`).
    ///   - encoder: The encoder of each value, for its date strategy, say. Default: a plain `JSONEncoder`.
    /// - Returns: This request.
    @discardableResult
    public func query(
        _ parameters: KeyValuePairs<String, (any Encodable)?>, arrays: QueryArrayEncoding = .repeatedName,
        booleans: QueryBoolEncoding = .literal, encoder: JSONEncoder = JSONEncoder()
    ) -> Self {
        do throws(SimpleNetworkingError) {
            var properties: [(name: String, field: FormFields.Field)] = []
            for (name, value) in parameters {
                guard let value else { continue }
                properties.append((name, try FormFields.field(named: name, of: value, encoder: encoder)))
            }
            return appendQuery(FormFields.flattened(properties, arrays: arrays, booleans: booleans))
        } catch {
            return update { $0.parts.buildProblem = $0.parts.buildProblem ?? error }
        }
    }

    /// Appends query parameters from a dictionary of values of mixed types, such as `["page": 2, "q": "cats"]`, in
    /// name order as ``query(from:encoder:)`` sends them; `nil` values are left out.
    ///
    /// The rules of ``query(_:arrays:booleans:encoder:)``, arrays sent as the name repeated. To keep the order
    /// written, use that form.
    /// - Parameter parameters: The names and values.
    /// - Returns: This request.
    @discardableResult
    public func query(from parameters: KeyValuePairs<String, (any Encodable)?>) -> Self {
        let sorted = parameters.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }
        var pairs: [(name: String, field: FormFields.Field)] = []
        do throws(SimpleNetworkingError) {
            for (_, (name, value)) in sorted {
                guard let value else { continue }
                pairs.append((name, try FormFields.field(named: name, of: value, encoder: JSONEncoder())))
            }
            return appendQuery(FormFields.flattened(pairs, arrays: .repeatedName, booleans: .literal))
        } catch {
            return update { $0.parts.buildProblem = $0.parts.buildProblem ?? error }
        }
    }

    /// Appends query parameters from the properties of a value, or from a dictionary, as ``query(from:encoder:)``
    /// does (one flat object, parameters in name order, `nil` left out), with arrays and Booleans sent as given.
    ///
    /// ```swift
    /// api.get("/items").query(from: Filter(ids: [4, 8], open: true), arrays: .indexed, booleans: .numeric)
    /// // ?ids%5B0%5D=4&ids%5B1%5D=8&open=1, that is ids[0]=4&ids[1]=8&open=1
    /// ```
    /// - Parameters:
    ///   - value: The parameters, as an `Encodable` value or a dictionary.
    ///   - arrays: How an array is sent.
    ///   - booleans: How a Boolean is sent. Default: ``QueryBoolEncoding/literal``.
    ///   - encoder: The encoder that turns `value` into parameters, for its key strategy. Default: a plain
    ///     `JSONEncoder`.
    /// - Returns: This request.
    @discardableResult
    public func query<Value: Encodable>(
        from value: Value, arrays: QueryArrayEncoding, booleans: QueryBoolEncoding = .literal,
        encoder: JSONEncoder = JSONEncoder()
    ) -> Self {
        do throws(SimpleNetworkingError) {
            let properties = try FormFields.properties(of: value, encoder: encoder)
            return appendQuery(FormFields.flattened(properties, arrays: arrays, booleans: booleans))
        } catch {
            return update { $0.parts.buildProblem = $0.parts.buildProblem ?? error }
        }
    }

    /// Appends `pairs` to the query, in order.
    private func appendQuery(_ pairs: [(name: String, value: String)]) -> Self {
        update { $0.parts.queryItems.append(contentsOf: pairs.map { QueryItem(name: $0.name, value: $0.value) }) }
    }
}

extension SimpleNetworkingError {
    /// The reason of an `invalidRequest`, or the description of any other error.
    fileprivate var invalidReason: String {
        if case .invalidRequest(let reason) = self { return reason }
        return String(describing: self)
    }
}
