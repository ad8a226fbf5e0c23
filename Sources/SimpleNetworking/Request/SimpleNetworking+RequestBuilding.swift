import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SimpleNetworking {
    /// Builds the request for one attempt: URL, merged headers, method, body. Validates everything first, so a bad
    /// header or URL is a thrown error and nothing reaches the network.
    ///
    /// The base URL is read once here, so the URL and the origin rules of one attempt follow the same value even
    /// when a provider changes it meanwhile.
    func makeHTTPRequest(for parts: SimpleRequest.Parts) throws(SimpleNetworkingError) -> HTTPRequest {
        if let problem = parts.buildProblem { throw problem }
        if case .unusable(let reason) = parts.body { throw .invalidRequest(reason: reason) }
        let base = baseURLSource.current
        let (url, origin) = try makeURL(for: parts, base: base)
        try RequestValidation.validate(method: parts.method)
        var headers = origin == base.origin ? defaultHeaders.merging(parts.headers) : parts.headers
        var body: Data?
        var bodyFile: URL?
        switch parts.body {
        case .file(let file, let contentType):
            guard FileManager.default.isReadableFile(atPath: file.path) else {
                throw .invalidRequest(reason: "the body file \(file.lastPathComponent) cannot be read")
            }
            bodyFile = file
            if let contentType, !headers.contains("Content-Type") { headers["Content-Type"] = contentType.rawValue }
        case .multipart(let form):
            let (data, contentType) = try form.encodedInMemory()
            body = data
            headers["Content-Type"] = contentType.rawValue
        case .data(let data, let contentType):
            body = data
            if let contentType, !headers.contains("Content-Type") { headers["Content-Type"] = contentType.rawValue }
        case .json(let value):
            do {
                body = try configuration.encoder.encode(value)
            } catch {
                throw .invalidRequest(reason: "the JSON body could not be encoded (\(type(of: value)))")
            }
            if !headers.contains("Content-Type") { headers["Content-Type"] = MediaType.json.rawValue }
        case .unusable, nil:
            break
        }
        try RequestValidation.validate(headers, allowsHostHeader: configuration.allowsHostHeader)
        return HTTPRequest(method: parts.method, url: url, headers: headers, body: body, bodyFile: bodyFile)
    }

    /// The transport's options for an attempt of `parts`, whose timeout the attempt has already worked out
    /// (`Configuration.attemptTimeout(requested:)`, clipped to the deadline): a value at or below
    /// zero is what is left of a deadline that has just passed, and the attempt times out at once.
    func transportOptions(for parts: SimpleRequest.Parts) -> TransportOptions {
        TransportOptions(
            timeout: parts.timeout ?? configuration.attemptTimeout(requested: nil),
            maximumResponseBodySize: parts.safety.maximumResponseBodySize ?? configuration.maximumResponseBodySize)
    }
}
