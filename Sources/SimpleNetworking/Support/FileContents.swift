import Foundation

/// Reading a file the library was pointed at (a multipart part's file, a saved cookie jar, a resumable download's
/// partial and validator files): its size, and its whole contents.
enum FileContents {
    /// The bytes of `file`. An empty regular file gives empty bytes without being read: Foundation's
    /// `Data(contentsOf:)` on Linux keeps the 4,096-byte buffer it reads an empty file into for the life of the
    /// process, so a program that read many empty files would grow without bound.
    /// - Throws: What `Data(contentsOf:)` throws: the file is missing or cannot be read.
    static func read(_ file: URL) throws -> Data {
        let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
        if attributes?[.type] as? FileAttributeType == .typeRegular, size(in: attributes) == 0 { return Data() }
        return try Data(contentsOf: file)
    }

    /// The size of `file` in bytes, or `nil` when it cannot be read.
    static func size(of file: URL) -> Int64? {
        size(in: try? FileManager.default.attributesOfItem(atPath: file.path))
    }

    /// The size that a file's attributes give.
    private static func size(in attributes: [FileAttributeKey: Any]?) -> Int64? {
        (attributes?[.size] as? NSNumber)?.int64Value
    }
}
