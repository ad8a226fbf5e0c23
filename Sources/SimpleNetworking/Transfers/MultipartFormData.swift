import Foundation

/// A `multipart/form-data` body (RFC 7578): text fields, and files from memory or from disk.
///
/// Build it part by part, then send it with ``SimpleRequest/body(multipart:)``. The boundary is random, chosen when
/// the body is encoded, and checked against every part, file parts included, so it never occurs inside one. Names and
/// filenames are escaped as browsers do (WHATWG HTML, "multipart/form-data encoding"): `"` as `%22`, CR as `%0D`, LF
/// as `%0A`, and anything else, non-ASCII included, as UTF-8.
///
/// When the files added from disk total more than ``streamingThreshold``, the body is written to a temporary file,
/// the files copied into it piece by piece, and uploaded from there, so memory stays bounded; below it, the body is
/// built in memory.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "name")
/// form.append(fileAt: photoURL, name: "photo", contentType: "image/jpeg")
/// let response = try await api.post("/profile").body(multipart: form).response()
/// ```
public struct MultipartFormData: Sendable {
    /// Above this many bytes of files from disk, the body is streamed from a temporary file rather than built in
    /// memory: 1 MiB.
    public static let streamingThreshold = 1024 * 1024

    /// One part as given.
    struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        var name: String
        var filename: String?
        var contentType: MediaType?
        var content: Content
    }

    private(set) var parts: [Part] = []

    /// Creates an empty form.
    public init() {}

    /// Adds a text field, sent as UTF-8.
    /// - Parameters:
    ///   - value: The field's value.
    ///   - name: The field's name.
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8))))
    }

    /// Adds a part from memory: a file when it has a filename, a field otherwise.
    /// - Parameters:
    ///   - data: The part's bytes.
    ///   - name: The field's name.
    ///   - filename: The filename to send, or `nil` for none. Default: `nil`.
    ///   - contentType: The part's `Content-Type`, or `nil` for none. Default: `application/octet-stream` when
    ///     there is a filename, else none.
    public mutating func append(_ data: Data, name: String, filename: String? = nil, contentType: MediaType? = nil) {
        let type = contentType ?? (filename == nil ? nil : .octetStream)
        parts.append(Part(name: name, filename: filename, contentType: type, content: .data(data)))
    }

    /// Adds a file from disk, read when the body is encoded (for each attempt), streamed above
    /// ``streamingThreshold``.
    /// - Parameters:
    ///   - file: The file URL.
    ///   - name: The field's name.
    ///   - filename: The filename to send. Default: the file's own name.
    ///   - contentType: The part's `Content-Type`. Default: `application/octet-stream`.
    public mutating func append(
        fileAt file: URL, name: String, filename: String? = nil, contentType: MediaType = .octetStream
    ) {
        parts.append(
            Part(
                name: name, filename: filename ?? file.lastPathComponent, contentType: contentType, content: .file(file)
            ))
    }

    /// The bytes of files from disk, and whether they are more than ``streamingThreshold``.
    var streamsFromDisk: Bool {
        var total: Int64 = 0
        for case .file(let url) in parts.map(\.content) {
            total += FileContents.size(of: url) ?? 0
        }
        return total > Int64(Self.streamingThreshold)
    }

    /// A name or filename as it goes between quotes: `"`, CR and LF percent-encoded, as browsers do.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The header section of a part, with the boundary line before it.
    private func head(of part: Part, boundary: String) throws(SimpleNetworkingError) -> Data {
        var text = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
        if let filename = part.filename { text += "; filename=\"\(Self.escape(filename))\"" }
        text += "\r\n"
        if let type = part.contentType {
            guard !type.rawValue.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidRequest(reason: "a multipart part's content type holds a control character")
            }
            text += "Content-Type: \(type.rawValue)\r\n"
        }
        return Data((text + "\r\n").utf8)
    }

    /// A random boundary: 32 hexadecimal digits after a prefix no text is likely to hold.
    private static func makeBoundary() -> String {
        "SimpleNetworking-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// The `Content-Type` of the body with `boundary`.
    static func mediaType(boundary: String) -> MediaType {
        MediaType(rawValue: "multipart/form-data; boundary=\(boundary)")
    }

    /// The whole body in memory, files read whole, with a boundary found in no part.
    /// - Returns: The body and its `Content-Type`.
    /// - Throws: ``SimpleNetworkingError/invalidRequest(reason:)`` when a file cannot be read.
    func encodedInMemory() throws(SimpleNetworkingError) -> (body: Data, contentType: MediaType) {
        var contents: [Data] = []
        for part in parts {
            switch part.content {
            case .data(let data): contents.append(data)
            case .file(let url): contents.append(try HTTPRequest.contents(of: url))
            }
        }
        var boundary = Self.makeBoundary()
        while contents.contains(where: { $0.range(of: Data(boundary.utf8)) != nil }) { boundary = Self.makeBoundary() }
        var body = Data()
        for (part, content) in zip(parts, contents) {
            body.append(try head(of: part, boundary: boundary))
            body.append(content)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return (body, Self.mediaType(boundary: boundary))
    }

    /// The whole body written to a new temporary file, files copied in 64 KiB pieces; the boundary is checked as they
    /// are copied, and the file written again with another one in the unlikely case it occurs. The writing blocks, so
    /// it runs on a queue of its own, never on a thread of Swift's cooperative pool.
    /// - Returns: The temporary file, which the caller removes, and the body's `Content-Type`.
    /// - Throws: ``SimpleNetworkingError/invalidRequest(reason:)`` when a file cannot be read, and
    ///   ``SimpleNetworkingError/fileFailed(reason:)`` when the temporary file cannot be written.
    func encodedToFile() async throws(SimpleNetworkingError) -> (file: URL, contentType: MediaType) {
        let result = await withCheckedContinuation { continuation in
            Self.fileWork.async {
                do throws(SimpleNetworkingError) {
                    continuation.resume(
                        returning: Result<(file: URL, contentType: MediaType), SimpleNetworkingError>.success(
                            try writtenToNewFile()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// The queue of ``encodedToFile()``'s blocking work.
    private static let fileWork = DispatchQueue(label: "SimpleNetworking.files")

    /// ``encodedToFile()``'s work, which blocks while it writes.
    private func writtenToNewFile() throws(SimpleNetworkingError) -> (file: URL, contentType: MediaType) {
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("SimpleNetworking-multipart-\(UUID().uuidString)")
        while true {
            let boundary = Self.makeBoundary()
            do throws(SimpleNetworkingError) {
                if try write(to: file, boundary: boundary) { return (file, Self.mediaType(boundary: boundary)) }
            } catch {
                try? FileManager.default.removeItem(at: file)
                throw error
            }
        }
    }

    /// Writes the body to `file`.
    /// - Returns: `false` when `boundary` occurs in a part, so the body must be written again with another.
    private func write(to file: URL, boundary: String) throws(SimpleNetworkingError) -> Bool {
        let marker = Data(boundary.utf8)
        guard FileManager.default.createFile(atPath: file.path, contents: nil),
            let output = try? FileHandle(forWritingTo: file)
        else { throw .fileFailed(reason: "the temporary file of a multipart body could not be created") }
        defer { try? output.close() }
        func put(_ data: Data) throws(SimpleNetworkingError) {
            do {
                try output.write(contentsOf: data)
            } catch {
                throw .fileFailed(reason: "the temporary file of a multipart body could not be written")
            }
        }
        for part in parts {
            try put(try head(of: part, boundary: boundary))
            switch part.content {
            case .data(let data):
                if data.range(of: marker) != nil { return false }
                try put(data)
            case .file(let url):
                guard let input = try? FileHandle(forReadingFrom: url) else {
                    throw .invalidRequest(reason: "the multipart file \(url.lastPathComponent) cannot be read")
                }
                defer { try? input.close() }
                // The end of the previous piece, so a boundary split between two pieces is still seen.
                var tail = Data()
                while true {
                    let piece: Data
                    do {
                        piece = try input.read(upToCount: 64 * 1024) ?? Data()
                    } catch {
                        throw .invalidRequest(reason: "the multipart file \(url.lastPathComponent) cannot be read")
                    }
                    if piece.isEmpty { break }
                    if (tail + piece).range(of: marker) != nil { return false }
                    try put(piece)
                    tail = piece.suffix(marker.count - 1)
                }
            }
            try put(Data("\r\n".utf8))
        }
        try put(Data("--\(boundary)--\r\n".utf8))
        return true
    }
}

extension SimpleRequest {
    /// Sets a `multipart/form-data` body, with its `Content-Type` and boundary.
    ///
    /// The form is encoded for each attempt: in memory, or, with more than
    /// ``MultipartFormData/streamingThreshold`` of files from disk, into a temporary file streamed as it is sent and
    /// removed after the attempt. A file that cannot be read makes the request fail with
    /// ``SimpleNetworkingError/invalidRequest(reason:)``. Over URLSession a GET or HEAD request cannot carry one.
    /// - Parameter form: The form.
    /// - Returns: This request.
    @discardableResult
    public func body(multipart form: MultipartFormData) -> Self {
        update { $0.parts.body = .multipart(form) }
    }

    /// Sets a body read from a file as it is sent, in bounded memory, with the method of the request.
    ///
    /// On Linux the file is sent with an upload task, which streams it (FoundationNetworking sends an empty body for
    /// a body stream; see <doc:LinuxPlatformNotes>). Redirects that keep the method (307, 308) send it again. A
    /// file that cannot be read makes the request fail with ``SimpleNetworkingError/invalidRequest(reason:)`` and
    /// nothing is sent; over URLSession a GET or HEAD request cannot carry one.
    ///
    /// ```swift
    /// _ = try await api.put("/backups/today").body(fileAt: archive).progress { print($0.bytesCompleted) }.response()
    /// ```
    /// - Parameters:
    ///   - file: The file URL.
    ///   - contentType: The `Content-Type`, unless the request already sets one; `nil` sends none. Default:
    ///     `application/octet-stream`.
    /// - Returns: This request.
    @discardableResult
    public func body(fileAt file: URL, contentType: MediaType? = .octetStream) -> Self {
        update { $0.parts.body = .file(file, contentType) }
    }
}
