import Foundation

/// Files a target writes to, in one directory per process under `TMPDIR`, reused for every input: a run of
/// millions of inputs leaves a handful of files, which the process removes when it exits normally. `.ci/fuzz`
/// points `TMPDIR` at a scratch directory of its own, so even a crash leaves nothing behind.
public enum ScratchFiles {
    /// The process's directory, created at first use.
    public static let directory: URL = {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
            .appendingPathComponent("simple-networking-fuzz-\(getpid())", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            fatalError("cannot create the scratch directory \(directory.path): \(error)")
        }
        atexit {
            let directory = URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true)
                .appendingPathComponent("simple-networking-fuzz-\(getpid())", isDirectory: true)
            try? FileManager.default.removeItem(at: directory)
        }
        return directory
    }()

    /// The file named `name` in the process's directory; the same URL for every input.
    /// - Parameter name: A file name.
    /// - Returns: The file's URL.
    public static func file(_ name: String) -> URL {
        directory.appendingPathComponent(name, isDirectory: false)
    }
}
