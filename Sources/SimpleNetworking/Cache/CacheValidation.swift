/// The precondition fields a cache adds to a request to validate a stored response (RFC 9111 section 4.3.1).
///
/// - `If-None-Match` with the stored `ETag`, whenever there is one (a MUST), sent as received: an entity tag is
///   opaque, and a server that sent one unquoted compares what it sent;
/// - `If-Modified-Since` with the stored `Last-Modified` text, whenever there is one (a SHOULD; both fields are sent
///   together, as section 4.3.1 notes is usual: a server that knows entity tags lets `If-None-Match` win, RFC 9110
///   section 13.2.2);
/// - with neither, `If-Modified-Since` with the stored `Date`, the time the response was generated (RFC 9110
///   section 13.1.3 names it as the usual source when `Last-Modified` is missing).
///
/// No fields at all means the stored response cannot be validated: the request goes out unconditionally.
package struct CacheValidation: Sendable, Equatable {
    /// The `If-None-Match` value, or `nil`.
    package var ifNoneMatch: String?
    /// The `If-Modified-Since` value, or `nil`.
    package var ifModifiedSince: String?

    /// Creates validation fields.
    /// - Parameters:
    ///   - ifNoneMatch: The `If-None-Match` value.
    ///   - ifModifiedSince: The `If-Modified-Since` value.
    package init(ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
    }

    /// The fields that validate a stored response with the given parsed fields.
    /// - Parameter fields: The stored response's fields.
    package init(fields: borrowing CacheResponseFields) {
        ifNoneMatch = fields.entityTag
        ifModifiedSince = fields.lastModifiedText ?? (fields.entityTag == nil ? fields.dateText : nil)
    }

    /// Whether there is at least one field: the request is conditional.
    package var isConditional: Bool { ifNoneMatch != nil || ifModifiedSince != nil }

    /// The fields to add to the request, `If-None-Match` first.
    package var headerFields: [HTTPHeaders.Field] {
        var fields: [HTTPHeaders.Field] = []
        if let ifNoneMatch { fields.append(HTTPHeaders.Field(name: "If-None-Match", value: ifNoneMatch)) }
        if let ifModifiedSince { fields.append(HTTPHeaders.Field(name: "If-Modified-Since", value: ifModifiedSince)) }
        return fields
    }
}
