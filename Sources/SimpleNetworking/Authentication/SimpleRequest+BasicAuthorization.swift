import Foundation

extension SimpleRequest {
    /// Sets `Authorization: Basic ...` from a user name and password (RFC 7617): `user:password` in UTF-8, in
    /// Base64.
    ///
    /// `Authorization` is a sensitive header (``SimpleNetworking/Configuration/sensitiveHeaders``): it is removed once
    /// a redirect leaves the origin, and ``cURLDescription(on:redactingSecrets:)`` shows `<redacted>` instead of it.
    ///
    /// ```swift
    /// let response = try await api.get("/account").basicAuthorization(user: "ada", password: password).response()
    /// ```
    /// - Parameters:
    ///   - user: The user name; a colon or a control character in it makes the request fail with
    ///     ``SimpleNetworkingError/invalidRequest(reason:)`` and nothing is sent, since the server could not tell
    ///     where the name ends.
    ///   - password: The password; a control character in it makes the request fail the same way.
    /// - Returns: This request.
    @discardableResult
    public func basicAuthorization(user: String, password: String) -> Self {
        let hasControl = { (text: String) in
            text.unicodeScalars.contains { $0.properties.generalCategory == .control }
        }
        let problem: String?
        if user.contains(":") {
            problem = "the user name of basic authorization holds a colon, which would end the name early"
        } else if hasControl(user) || hasControl(password) {
            problem = "the user name or password of basic authorization holds a control character"
        } else {
            problem = nil
        }
        if let problem {
            return update { $0.parts.buildProblem = $0.parts.buildProblem ?? .invalidRequest(reason: problem) }
        }
        return header("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }
}
