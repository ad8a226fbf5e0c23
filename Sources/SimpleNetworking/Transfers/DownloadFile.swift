import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file of one run of ``SimpleRequest/download(to:resumable:)``, across its attempts: where the body is written
/// before it is moved into place, and what a later attempt may resume from.
///
/// The partial file is a hidden file beside the destination: `.NAME.partial` for a resumable download, whose strong
/// validator is kept beside it in `.NAME.partial-validator` for a later run; `.NAME.UUID.download` otherwise, removed
/// when the run ends. Each attempt writes through a ``FileDestination`` of its own.
final class DownloadFile: Sendable {
    /// Bytes received and kept for a later attempt, with the validator the server named for them.
    struct Partial: Sendable, Equatable {
        var length: Int64
        var validator: String
    }

    let destination: URL
    let resumable: Bool
    /// Where the body is written until it is complete.
    let partialURL: URL
    /// Where a resumable download keeps the validator of its partial file.
    private let validatorURL: URL
    /// What the next attempt may resume from.
    private let partial = Locked<Partial?>(nil)

    init(_ destination: URL, resumable: Bool) {
        self.destination = destination
        self.resumable = resumable
        let name = destination.lastPathComponent
        let folder = destination.deletingLastPathComponent()
        partialURL = folder.appendingPathComponent(
            resumable ? ".\(name).partial" : ".\(name).\(UUID().uuidString).download")
        validatorURL = folder.appendingPathComponent(".\(name).partial-validator")
        if resumable { partial.set(Self.storedPartial(at: partialURL, validatorAt: validatorURL)) }
    }

    /// What the next attempt may resume from, if anything.
    var partialToResume: Partial? { partial.current }

    /// Keeps `kept` for the next attempt (and, when resumable, for a later run), or forgets any partial file.
    func keep(_ kept: Partial?) {
        partial.set(kept)
        guard resumable else { return }
        if let kept {
            try? Data(kept.validator.utf8).write(to: validatorURL, options: .atomic)
        } else {
            try? FileManager.default.removeItem(at: validatorURL)
        }
    }

    /// The run ended: a partial file left for no one is removed; a resumable one stays for the next run.
    func end() {
        guard !resumable else { return }
        if partial.current != nil { try? FileManager.default.removeItem(at: partialURL) }
        partial.set(nil)
    }

    /// The partial file and its validator a resumable download left, when both are there and readable.
    ///
    /// The validator file is read only when its size is that of a validator (1 to 1,024 bytes): a large file planted
    /// in its place is never read into memory, and an empty one is not read at all (``FileContents`` says why;
    /// `fuzz-download-resumption` ran out of memory on it).
    private static func storedPartial(at file: URL, validatorAt validatorFile: URL) -> Partial? {
        guard let validatorSize = FileContents.size(of: validatorFile), (1...1024).contains(validatorSize),
            let data = try? FileContents.read(validatorFile), data.count <= 1024,
            let validator = String(data: data, encoding: .utf8), !validator.isEmpty,
            !validator.contains(where: { $0.isNewline }),
            let length = FileContents.size(of: file), length > 0
        else { return nil }
        return Partial(length: length, validator: validator)
    }
}

/// One attempt's writing of a download's body: to the run's partial file, from its start or, for the answer to a range
/// request, after what it holds; moved into place when the attempt succeeded, kept for the next attempt when the bytes
/// so far can be resumed, removed otherwise.
///
/// The lock guards only the bookkeeping: every write, close and removal of the file runs outside it, since the lock
/// must never be held across blocking work. The transport writes one piece at a time, never concurrently; a
/// `discard()` that arrives while a write runs leaves the file to that write, which removes it when it returns.
final class FileDestination: ResponseDestination {
    private struct State: @unchecked Sendable {
        // @unchecked Sendable: the handle is only ever used by one thread at a time, handed out of the lock to it.
        var handle: FileHandle?
        /// Bytes not yet written: pieces are gathered up to ``FileDestination/writeSize`` per write, since a
        /// system call for each 16 KiB piece the platform delivers costs a third of the throughput.
        var pending = Data()
        /// Settled: later writes (from a transfer still winding down) are dropped.
        var closed = false
        /// A write runs outside the lock; whoever closes the file meanwhile leaves it to that write.
        var writing = false
        /// The validator of the bytes in the file, `nil` when they cannot be resumed.
        var validator: String?
        /// The offset this attempt asked the server to resume from, `nil` for the whole file.
        var resumingFrom: Int64?
        /// Whether this attempt opened the file (a 2xx began).
        var began = false
    }

    /// The size of each write to the file: 1 MiB.
    static let writeSize = 1024 * 1024

    let file: DownloadFile
    private let state = Locked(State())

    init(_ file: DownloadFile) {
        self.file = file
    }

    /// `request`, asking for the rest of the file when the run has a partial file to resume and the request names no
    /// range of its own.
    func ranged(_ request: HTTPRequest) -> HTTPRequest {
        guard let partial = file.partialToResume, !request.headers.contains("Range") else { return request }
        var request = request
        for (name, value) in DownloadResumption.rangeFields(from: partial.length, validator: partial.validator) {
            request.headers[name] = value
        }
        state.withLock { $0.resumingFrom = partial.length }
        return request
    }

    func begin(_ head: SimpleResponse) throws(SimpleNetworkingError) {
        let name = file.destination.lastPathComponent
        let folder = file.destination.deletingLastPathComponent()
        // Missing folders are made once a 2xx answer begins, so a request that fails earlier leaves none behind.
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileFailed(reason: "the folders of \(name) could not be created")
        }
        let resumingFrom = state.withLock { $0.began ? nil : $0.resumingFrom }
        let previous = file.partialToResume
        var appends = false
        if let resumingFrom {
            switch DownloadResumption.verdict(
                status: head.statusCode, headers: head.headers, partialLength: resumingFrom)
            {
            case .append: appends = true
            case .refuse(let reason):
                // The bytes kept cannot be continued: they go, so that no later attempt or run asks for them again.
                state.withLock { $0.closed = true }
                file.keep(nil)
                try? FileManager.default.removeItem(at: file.partialURL)
                throw .transportFailed(TransportFailure(.badServerResponse, detail: "\(name): \(reason)"))
            case .restart, .complete, .notADownload: break
            }
        }
        // Either way the partial file is this attempt's now: until its bytes are kept again, nothing resumes from it.
        file.keep(nil)
        let handle: FileHandle
        do {
            if !appends {
                guard FileManager.default.createFile(atPath: file.partialURL.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown)
                }
            }
            handle = try FileHandle(forWritingTo: file.partialURL)
            if appends { try handle.seekToEnd() }
        } catch {
            // Nothing resumes from it now: it goes rather than staying behind untracked.
            try? FileManager.default.removeItem(at: file.partialURL)
            throw .fileFailed(reason: "\(name) could not be created in its directory")
        }
        // A 206 continues the bytes of the validator the range was asked with; a new file, those of its answer.
        let validator = appends ? previous?.validator : DownloadResumption.validator(of: head.headers)
        let resumable = DownloadResumption.hasNoContentCoding(head.headers)
        // The file of an earlier hop of this attempt goes; so does the new one when the attempt was settled meanwhile.
        let unused = state.withLock { state -> FileHandle? in
            guard !state.closed else { return handle }
            defer {
                state.handle = handle
                state.began = true
                state.pending = Data()
                state.validator = resumable ? validator : nil
            }
            return state.handle
        }
        try? unused?.close()
    }

    func write(_ bytes: Data) throws(SimpleNetworkingError) {
        let batch = state.withLock { state -> (handle: FileHandle, data: Data)? in
            guard !state.closed, let handle = state.handle else { return nil }
            state.pending.append(bytes)
            guard state.pending.count >= Self.writeSize else { return nil }
            state.writing = true
            defer { state.pending = Data() }
            return (handle, state.pending)
        }
        guard let batch else { return }
        let written = Self.write(batch.data, to: batch.handle)
        let abandoned = state.withLock { state -> FileHandle? in
            state.writing = false
            guard state.closed else { return nil }
            defer { state.handle = nil }
            return state.handle
        }
        if let abandoned {
            try? abandoned.close()
            try? FileManager.default.removeItem(at: file.partialURL)
        }
        guard written else { throw .fileFailed(reason: "\(file.destination.lastPathComponent) could not be written") }
    }

    /// Moves the file into place after a 2xx (or a 416 that says the partial file is the whole file); after a
    /// failure keeps what arrived for the next attempt when it can be resumed, and removes it otherwise.
    /// - Returns: The outcome, with ``SimpleResponse/fileURL`` set, or the failure to move the file.
    func settle(_ outcome: SimpleRequest.Outcome) -> SimpleRequest.Outcome {
        let name = file.destination.lastPathComponent
        let resumingFrom = state.withLock { $0.resumingFrom }
        if case .success(let response) = outcome, response.statusCode == 416, let resumingFrom {
            switch DownloadResumption.verdict(status: 416, headers: response.headers, partialLength: resumingFrom) {
            case .complete:
                // The partial file is the whole file: the download is done, as a 200 whose body is that file.
                var headers = response.headers
                headers["Content-Range"] = nil
                headers["Content-Length"] = String(resumingFrom)
                var complete = SimpleResponse(statusCode: 200, headers: headers, url: response.url)
                guard rename(file.partialURL.path, file.destination.path) == 0 else {
                    return .failure(.fileFailed(reason: "\(name) could not be moved into place"))
                }
                file.keep(nil)
                complete.fileURL = file.destination
                return .success(complete)
            default:
                discard()
                return outcome
            }
        }
        guard case .success(var response) = outcome, response.isSuccess else {
            keepOrDiscard()
            return outcome
        }
        let taken = state.withLock { state -> (handle: FileHandle?, pending: Data, began: Bool)? in
            state.closed = true
            // A write still running (the transport outlived its attempt) keeps the file and removes it.
            guard !state.writing else { return nil }
            defer {
                state.handle = nil
                state.pending = Data()
            }
            return (state.handle, state.pending, state.began)
        }
        guard let taken else { return .failure(.fileFailed(reason: "\(name) could not be written")) }
        if let handle = taken.handle, !taken.pending.isEmpty, !Self.write(taken.pending, to: handle) {
            try? handle.close()
            file.keep(nil)
            try? FileManager.default.removeItem(at: file.partialURL)
            return .failure(.fileFailed(reason: "\(name) could not be written"))
        }
        try? taken.handle?.close()
        // A 2xx whose head never reached the transfer (a transport that does not stream) still gets its file.
        if !taken.began, !FileManager.default.createFile(atPath: file.partialURL.path, contents: nil) {
            return .failure(.fileFailed(reason: "\(name) could not be created in its directory"))
        }
        // rename(2) replaces an existing file in one step: the destination is never missing nor partial.
        guard rename(file.partialURL.path, file.destination.path) == 0 else {
            try? FileManager.default.removeItem(at: file.partialURL)
            file.keep(nil)
            return .failure(.fileFailed(reason: "\(name) could not be moved into place"))
        }
        file.keep(nil)
        response.fileURL = file.destination
        return .success(response)
    }

    /// Closes and removes this attempt's file, if it began one; later writes are dropped.
    func discard() {
        let (handle, began) = state.withLock { state -> (FileHandle?, Bool) in
            state.closed = true
            defer { state.handle = nil }
            return state.writing ? (nil, false) : (state.handle, state.began)
        }
        try? handle?.close()
        if began {
            file.keep(nil)
            try? FileManager.default.removeItem(at: file.partialURL)
        }
    }

    /// After a failure: keeps the bytes written so far for the next attempt when they can be resumed (a validator,
    /// no content coding, at least one byte), else removes them. An attempt that began no file leaves the run's
    /// partial file, from an earlier attempt, as it was.
    private func keepOrDiscard() {
        let taken = state.withLock { state -> (handle: FileHandle, pending: Data, validator: String?)? in
            state.closed = true
            guard !state.writing, state.began, let handle = state.handle else { return nil }
            defer {
                state.handle = nil
                state.pending = Data()
            }
            return (handle, state.pending, state.validator)
        }
        // No file of this attempt's, or a write still running, which removes it when it returns.
        guard let taken else { return }
        var length: UInt64?
        if taken.pending.isEmpty || Self.write(taken.pending, to: taken.handle) {
            length = try? taken.handle.offset()
        }
        try? taken.handle.close()
        if let validator = taken.validator, let length, length > 0 {
            file.keep(DownloadFile.Partial(length: Int64(length), validator: validator))
        } else {
            file.keep(nil)
            try? FileManager.default.removeItem(at: file.partialURL)
        }
    }

    /// Writes `data`; `false` when the file cannot be written.
    private static func write(_ data: Data, to handle: FileHandle) -> Bool {
        do {
            try handle.write(contentsOf: data)
            return true
        } catch {
            return false
        }
    }
}
