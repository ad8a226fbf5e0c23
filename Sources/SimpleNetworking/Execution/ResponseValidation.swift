import Foundation

/// What a request accepts of a 2xx response beyond its status class (<doc:RequestsAndResponses>): the statuses of
/// ``SimpleRequest/validate(statusCode:)`` and the media types of ``SimpleRequest/validate(contentType:)``. Checked
/// by the handler job before the value step, so a response that fails reaches the error handlers and is never
/// decoded.
struct ResponseValidation: Sendable {
    /// The 2xx statuses accepted; `nil` accepts every 2xx.
    var statuses: Set<Int>?
    /// The media types accepted (`application/json`, `application/*`, `*/*`); `nil` accepts any.
    var contentTypes: [MediaType]?

    /// This validation with `statuses` as the accepted statuses.
    func accepting(statuses: Set<Int>) -> ResponseValidation {
        var changed = self
        changed.statuses = statuses
        return changed
    }

    /// This validation with `contentTypes` as the accepted media types.
    func accepting(contentTypes: [MediaType]) -> ResponseValidation {
        var changed = self
        changed.contentTypes = contentTypes
        return changed
    }

    /// The error `response`, a 2xx, fails with, or `nil` when it passes.
    func failure(for response: SimpleResponse) -> SimpleNetworkingError? {
        if let statuses, !statuses.contains(response.statusCode) { return .unacceptableStatus(response) }
        guard let contentTypes else { return nil }
        // A response without a body has nothing to be of a type (a 204, say), as in Alamofire.
        if response.body.isEmpty, response.fileURL == nil { return nil }
        guard let value = response.headers["Content-Type"] else {
            return .unacceptableContentType(response, acceptable: contentTypes)
        }
        let received = Self.essence(of: value).asciiLowercased
        let accepted = contentTypes.contains { Self.matches(Self.essence(of: $0.rawValue).asciiLowercased, received) }
        return accepted ? nil : .unacceptableContentType(response, acceptable: contentTypes)
    }

    /// The media type of a header value without its parameters and spaces: `text/html` of `text/html; charset=utf-8`.
    static func essence(of value: String) -> String {
        let type = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return type.trimmingCharacters(in: .whitespaces)
    }

    /// Whether the received type (lower-cased) is the accepted one, or within its wildcard (`*/*`, `text/*`).
    private static func matches(_ accepted: String, _ received: String) -> Bool {
        if accepted == "*/*" || accepted == "*" || accepted == received { return true }
        guard accepted.hasSuffix("/*"), let slash = received.firstIndex(of: "/") else { return false }
        return received[..<slash] == accepted.dropLast(2)
    }
}

extension SimpleRequest {
    /// Accepts only these statuses of a 2xx response; any other 2xx fails with
    /// ``SimpleNetworkingError/unacceptableStatus(_:)`` and reaches the error handlers as a status outside 2xx does.
    ///
    /// A status outside 2xx fails as before whether or not it is listed: act on one with a status handler
    /// (``on(httpStatus:_:)-(Int,_)``). Status handlers still run first, for any status. Calling it again replaces
    /// the set.
    ///
    /// ```swift
    /// let user = try await api.get("/users/1").validate(statusCode: [200]).decode(User.self)  // a 203 fails
    /// ```
    /// - Parameter statuses: The statuses accepted, such as `[200, 201]` or `200...202`.
    /// - Returns: This request.
    @discardableResult
    public func validate(statusCode statuses: some Sequence<Int>) -> Self {
        let accepted = Set(statuses)
        return update {
            $0.handlers.validation = ($0.handlers.validation ?? ResponseValidation()).accepting(statuses: accepted)
        }
    }

    /// Accepts only a 2xx response whose `Content-Type` is one of these media types; another, or none on a response
    /// with a body, fails with ``SimpleNetworkingError/unacceptableContentType(_:acceptable:)`` and reaches the error
    /// handlers as a status outside 2xx does, before anything is decoded.
    ///
    /// Types compare without their parameters (`application/json; charset=utf-8` is `application/json`) and ASCII
    /// case; `application/*` and `*/*` accept any subtype. A response without a body (a 204, say) passes. For a
    /// download the check runs once the file is complete: one that fails has its file removed. Calling it again
    /// replaces the list.
    ///
    /// ```swift
    /// let user = try await api.get("/users/1").validate(contentType: [.json]).decode(User.self)  // HTML fails
    /// ```
    /// - Parameter types: The media types accepted.
    /// - Returns: This request.
    @discardableResult
    public func validate(contentType types: [MediaType]) -> Self {
        update {
            $0.handlers.validation = ($0.handlers.validation ?? ResponseValidation()).accepting(contentTypes: types)
        }
    }
}
