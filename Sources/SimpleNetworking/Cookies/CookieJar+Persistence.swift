import Foundation

extension CookieJar {
    /// The file format: a version and the persistent cookies, as JSON.
    struct SavedJar: Codable {
        static let currentVersion = 1
        var version: Int
        var cookies: [SavedCookie]
    }

    /// One cookie in the file, every field of ``Cookie``.
    struct SavedCookie: Codable {
        var name: String
        var value: String
        var domain: String
        var path: String
        var expires: Date?
        var isSecure: Bool
        var isHTTPOnly: Bool
        var sameSite: String?
        var isHostOnly: Bool
        var creation: Date

        init(_ cookie: Cookie) {
            name = cookie.name
            value = cookie.value
            domain = cookie.domain
            path = cookie.path
            expires = cookie.expires
            isSecure = cookie.isSecure
            isHTTPOnly = cookie.isHTTPOnly
            sameSite = cookie.sameSite?.rawValue
            isHostOnly = cookie.isHostOnly
            creation = cookie.creation
        }

        var cookie: Cookie {
            Cookie(
                name: name, value: value, domain: domain, path: path, expires: expires, isSecure: isSecure,
                isHTTPOnly: isHTTPOnly, sameSite: sameSite.flatMap { SameSite.parse($0[...]) }, isHostOnly: isHostOnly,
                creation: creation)
        }
    }

    /// Saves the persistent cookies to `file`, replacing it atomically, readable and writable by the owner only
    /// (`0600`). Session cookies (no expiry) and expired ones are left out.
    ///
    /// The cookies are written to a new file beside `file` that only the owner can open, then renamed over it, so
    /// a reader sees the old file or the new one, never a part.
    /// - Parameter file: A file URL in a directory that exists.
    /// - Throws: ``CookieJarError/unwritableFile(path:reason:)`` when the file cannot be written.
    public func save(to file: URL) throws(CookieJarError) {
        let saved = SavedJar(
            version: SavedJar.currentVersion, cookies: cookies.filter { !$0.isSession }.map(SavedCookie.init))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(saved)
        } catch {
            throw .unwritableFile(path: file.path, reason: "the cookies could not be encoded")
        }
        try Self.writeAtomically(data, to: file)
    }

    /// Loads the cookies saved in `file` into this jar, replacing those with the same name, domain and path.
    ///
    /// An entry that cannot be used (a field missing or of the wrong type, a cookie that breaks the jar's rules) is
    /// skipped and named in the returned report, and every other entry is loaded: one bad entry never costs the
    /// other sites' cookies. Expired entries are left out and counted. Only a file that cannot be read as a saved jar
    /// at all throws, and then nothing is loaded.
    /// - Parameter file: A file written by ``save(to:)``.
    /// - Returns: What was loaded and what was skipped, and why.
    /// - Throws: ``CookieJarError/unreadableFile(path:reason:)`` when it cannot be read,
    ///   ``CookieJarError/corruptFile(path:reason:)`` when it is not a saved jar (not JSON, no list of cookies, an
    ///   unknown format version).
    @discardableResult
    public func load(from file: URL) throws(CookieJarError) -> LoadReport {
        let data: Data
        do {
            data = try FileContents.read(file)
        } catch {
            throw .unreadableFile(path: file.path, reason: "no such file, or it cannot be opened")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let saved: LoadedJar
        do {
            saved = try decoder.decode(LoadedJar.self, from: data)
        } catch {
            throw .corruptFile(path: file.path, reason: Self.reason(for: error))
        }
        guard saved.version == SavedJar.currentVersion else {
            throw .corruptFile(path: file.path, reason: "unknown format version \(saved.version)")
        }
        var report = LoadReport()
        var usable: [Cookie] = []
        let now = now()
        for (index, entry) in saved.cookies.enumerated() {
            switch entry {
            case .unusable(let reason):
                report.skipped.append(LoadReport.SkippedEntry(index: index, reason: reason))
            case .cookie(let cookie):
                if let reason = cookie.invalidReason {
                    report.skipped.append(LoadReport.SkippedEntry(index: index, reason: reason))
                } else if cookie.isExpired(at: now) {
                    report.expired += 1
                } else {
                    usable.append(cookie)
                }
            }
        }
        for cookie in usable.sorted(by: { $0.creation < $1.creation }) where add(cookie) { report.loaded += 1 }
        return report
    }

    /// What ``CookieJar/load(from:)`` did with the entries of a file.
    public struct LoadReport: Sendable, Equatable, CustomStringConvertible {
        /// An entry of the file that was not loaded, and why.
        public struct SkippedEntry: Sendable, Equatable, CustomStringConvertible {
            /// The entry's place in the file's list of cookies, from 0.
            public var index: Int
            /// Why it was skipped: the field or rule at fault, never a cookie's value.
            public var reason: String

            /// Creates an entry.
            /// - Parameters:
            ///   - index: The entry's place in the file, from 0.
            ///   - reason: Why it was skipped.
            public init(index: Int, reason: String) {
                self.index = index
                self.reason = reason
            }

            /// `cookie 3: reason`, counting from 1 as a person does.
            public var description: String { "cookie \(index + 1): \(reason)" }
        }

        /// The cookies loaded into the jar.
        public var loaded = 0
        /// The entries left out because they had expired.
        public var expired = 0
        /// The entries that could not be used, in file order.
        public var skipped: [SkippedEntry] = []

        /// Creates an empty report.
        public init() {}

        /// `loaded 12, expired 1, skipped 1 (cookie 3: ...)`.
        public var description: String {
            var text = "loaded \(loaded), expired \(expired), skipped \(skipped.count)"
            if !skipped.isEmpty { text += " (" + skipped.map(\.description).joined(separator: "; ") + ")" }
            return text
        }
    }

    /// A saved jar as read back: each entry decoded on its own, so that one bad entry spoils only itself.
    private struct LoadedJar: Decodable {
        var version: Int
        var cookies: [LoadedEntry]
    }

    private enum LoadedEntry: Decodable {
        case cookie(Cookie)
        case unusable(reason: String)

        init(from decoder: any Decoder) throws {
            do {
                self = .cookie(try SavedCookie(from: decoder).cookie)
            } catch {
                self = .unusable(reason: CookieJar.reason(for: error))
            }
        }
    }

    /// A description of a decoding failure that names the place in the file, never a value in it.
    private static func reason(for error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it is not JSON" }
        func place(_ path: [any CodingKey]) -> String {
            path.isEmpty
                ? "the top level"
                : path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(
                    separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(key.stringValue) is missing at \(place(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "a value of the wrong type at \(place(context.codingPath))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON" : "a bad value at \(place(context.codingPath))"
        @unknown default: return "it is not a saved cookie jar"
        }
    }

    /// Writes `data` to a new owner-only file beside `file`, flushes it, and renames it over `file`.
    private static func writeAtomically(_ data: Data, to file: URL) throws(CookieJarError) {
        let path = file.path
        let directory = file.deletingLastPathComponent().path
        let temporary = directory + "/." + file.lastPathComponent + "." + UUID().uuidString + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw .unwritableFile(path: path, reason: "cannot create a file in \(directory) (errno \(errno))")
        }
        var failure: String?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "write failed (errno \(errno))"
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = "fsync failed (errno \(errno))" }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = "rename failed (errno \(errno))" }
        if let failure {
            unlink(temporary)
            throw .unwritableFile(path: path, reason: failure)
        }
    }
}
