import Foundation

/// The file operations of ``DiskCacheStorage``, on POSIX calls: files are opened without following a symbolic link
/// and without blocking (a FIFO named like a cache file cannot hang a reader), and only regular files are used.
enum CacheFiles {
    /// An open regular file: its descriptor, size and last modification.
    struct OpenFile {
        let descriptor: Int32
        let size: Int
        let modified: Date
    }

    /// Why a file could not be opened for reading.
    enum OpenFailure: Error {
        /// There is no file of that name.
        case missing
        /// The name is a symbolic link, a directory or anything else that is not a regular file: never the cache's.
        case notRegular
        /// It could not be opened or examined.
        case failed
    }

    /// Opens the regular file at `path` for reading.
    static func openForReading(_ path: String) -> Result<OpenFile, OpenFailure> {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT: return .failure(.missing)
            case ELOOP: return .failure(.notRegular)
            default: return .failure(.failed)
            }
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return .failure(.failed)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return .failure(.notRegular)
        }
        return .success(OpenFile(descriptor: descriptor, size: Int(status.st_size), modified: modificationDate(status)))
    }

    /// Whether `path` is a regular file (not a symbolic link to one), and its size.
    static func regularFileSize(_ path: String) -> Int? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Reads up to `count` bytes at the descriptor's position into `buffer`; 0 at the end, -1 on failure.
    static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let count = read(descriptor, base, buffer.count)
            if count < 0, errno == EINTR { continue }
            return count
        }
    }

    /// Reads exactly `count` bytes; `nil` when the file ends first or a read fails.
    static func readExactly(_ descriptor: Int32, count: Int) -> Data? {
        var data = Data(count: count)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < count {
                let count = readSome(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset...]))
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
    }

    /// Creates a new file of a ``CacheFileName/temporary()`` name in `directory`, readable and writable by the owner
    /// only; its descriptor and path, or `nil`.
    static func createTemporary(in directory: String) -> (descriptor: Int32, path: String)? {
        let path = directory + "/" + CacheFileName.temporary()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        return (descriptor, path)
    }

    /// Writes every byte of `bytes`; `false` when a write fails.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Writes `bytes` to a new file in `directory`, flushes it to the disk, sets its modification time to `date`,
    /// and renames it to `name`: a reader sees the old file or the new one, never a part (as the cookie jar saves).
    /// `false` when any step fails; nothing is then left behind.
    static func writeAtomically(_ bytes: [UInt8], in directory: String, to name: String, modified date: Date) -> Bool {
        guard let (descriptor, temporary) = createTemporary(in: directory) else { return false }
        var done = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        done = done && fsync(descriptor) == 0 && setModificationDate(descriptor, date)
        close(descriptor)
        done = done && rename(temporary, directory + "/" + name) == 0
        if !done { unlink(temporary) }
        return done
    }

    /// Sets the last access and modification times of an open file.
    static func setModificationDate(_ descriptor: Int32, _ date: Date) -> Bool {
        var times = [timeSpec(date), timeSpec(date)]
        return futimens(descriptor, &times) == 0
    }

    /// Sets the last access and modification times of the file at `path`, not following a symbolic link.
    static func setModificationDate(_ path: String, _ date: Date) {
        var times = [timeSpec(date), timeSpec(date)]
        _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    /// Removes the file at `path` (a symbolic link itself, never its target); a missing file is no failure.
    static func remove(_ path: String) {
        unlink(path)
    }

    private static func timeSpec(_ date: Date) -> timespec {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e15 else { return timespec(tv_sec: 0, tv_nsec: 0) }
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: min(Int((seconds - whole) * 1e9), 999_999_999))
    }

    private static func modificationDate(_ status: stat) -> Date {
        #if canImport(Darwin)
            let time = status.st_mtimespec
        #else
            let time = status.st_mtim
        #endif
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
}
