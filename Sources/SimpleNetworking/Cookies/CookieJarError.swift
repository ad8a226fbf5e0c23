/// Why a ``CookieJar`` could not be saved to a file or loaded from one.
///
/// Descriptions name the file and the problem, never a cookie's value.
public enum CookieJarError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read (it does not exist, or cannot be opened).
    case unreadableFile(path: String, reason: String)
    /// The file is not a cookie jar saved by ``CookieJar/save(to:)``: not JSON, no list of cookies, or an unknown
    /// format version. Nothing was loaded. (A single unusable entry is skipped and reported in
    /// ``CookieJar/LoadReport`` instead.)
    case corruptFile(path: String, reason: String)
    /// The file could not be written; any earlier file at the path is left as it was.
    case unwritableFile(path: String, reason: String)

    /// What went wrong and with which file.
    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read the cookie file \(path): \(reason)"
        case .corruptFile(let path, let reason): "the cookie file \(path) is corrupt: \(reason); nothing was loaded"
        case .unwritableFile(let path, let reason): "cannot write the cookie file \(path): \(reason)"
        }
    }
}
