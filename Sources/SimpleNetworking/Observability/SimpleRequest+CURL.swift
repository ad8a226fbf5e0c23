import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SimpleRequest {
    /// A `curl` command that sends this request as `client` would send its next attempt, for debugging.
    ///
    /// By default secrets are redacted to `<redacted>`: the values of
    /// ``SimpleNetworking/Configuration/sensitiveHeaders`` (`Authorization`, `Cookie` and the others), of
    /// ``SimpleNetworking/Configuration/sensitiveQueryParameters`` in the URL, and of those fields in a JSON or
    /// form body (a JSON body is re-serialized with sorted keys). Other bodies are shown only as their size, since
    /// they can hold anything. User info in the URL is removed.
    ///
    /// ```swift
    /// print(try api.get("/me").header("Authorization", "Bearer abc").cURLDescription(on: api))
    /// // curl 'https://api.example.com/me' \
    /// //   -H 'Authorization: <redacted>'
    /// ```
    /// - Parameters:
    ///   - client: The client whose base URL and default headers apply.
    ///   - redactingSecrets: Pass `false` to print every value as it would be sent, on purpose. Default: `true`.
    /// - Returns: The command, one option per line.
    /// - Throws: ``SimpleNetworkingError/invalidURL(reason:)`` or ``SimpleNetworkingError/invalidRequest(reason:)``
    ///   when the request could not be sent as built.
    public func cURLDescription(on client: SimpleNetworking, redactingSecrets: Bool = true)
        throws(SimpleNetworkingError) -> String
    {
        var parts = state.withLock { $0.parts }
        if case .multipart(let form) = parts.body, form.streamsFromDisk {
            // Not read here: a form with large files is only written out when it is sent.
            parts.body = .data(Data("<multipart/form-data with large files>".utf8), "multipart/form-data")
        }
        let request = try client.makeHTTPRequest(for: parts)
        return CURLCommand(request: request, redacting: redactingSecrets ? client.sensitiveData : nil).text
    }
}

/// The text of a `curl` command for a request, optionally with secrets redacted.
struct CURLCommand {
    let request: HTTPRequest
    /// The names to redact, or `nil` to show everything.
    let redacting: SensitiveData?

    var text: String {
        let method = request.method.rawValue
        var line = "curl"
        if method == "HEAD" {
            line += " --head"
        } else if method != "GET" || request.body != nil {
            line += " -X " + Self.quote(method)
        }
        let url = redacting.map { $0.redact(request.url) } ?? request.url.absoluteString
        var lines = [line + " " + Self.quote(url)]
        let headers = request.headers.fields.map { ($0.name, $0.value) }
        for (name, value) in headers.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) {
            let shown = redacting?.isSensitive(header: name) == true ? SensitiveData.placeholder : value
            lines.append("-H " + Self.quote(name + ": " + shown))
        }
        if let file = request.bodyFile {
            lines.append("--data-binary " + Self.quote("@" + file.path))
        } else if let body = request.body, !body.isEmpty {
            lines.append("--data-binary " + Self.quote(bodyText(body)))
        }
        return lines.joined(separator: " \\\n  ")
    }

    private func bodyText(_ body: Data) -> String {
        guard let text = String(data: body, encoding: .utf8) else { return "<\(body.count) bytes of binary data>" }
        guard let redacting else { return text }
        let contentType = request.headers["Content-Type"]?.lowercased() ?? ""
        if contentType.hasPrefix(MediaType.formURLEncoded.rawValue) {
            return redacting.redact(query: text)
        }
        if contentType.contains("json"),
            let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
            let data = try? JSONSerialization.data(
                withJSONObject: redacting.redact(json: value), options: [.sortedKeys, .fragmentsAllowed])
        {
            return String(decoding: data, as: UTF8.self)
        }
        return "<\(body.count) bytes redacted>"
    }

    /// `text` in single quotes for a POSIX shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
