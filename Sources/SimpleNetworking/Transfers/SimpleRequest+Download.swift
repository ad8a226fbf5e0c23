import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension SimpleRequest {
    /// Runs a bound request and writes the body of its 2xx response to `destination` as it arrives, in bounded
    /// memory.
    ///
    /// The body goes to a temporary file in the destination's directory and is moved into place, replacing any file
    /// there, only once it is complete; after a failure, a non-2xx answer or cancellation nothing is left at the
    /// destination, and a file already there is untouched. Missing folders of the destination are created when a 2xx
    /// answer begins (and stay if the transfer then fails). Handlers, retries, redirects and re-authentication work
    /// as for any request: the bodies of redirects and errors are read into memory for them as usual. The size
    /// limit is off for the downloaded body unless ``maximumResponseBodySize(_:)`` sets one.
    ///
    /// ```swift
    /// let file = URL(fileURLWithPath: "/tmp/archive.zip")
    /// let response = try await api.get("/archive.zip").download(to: file)
    /// print(response.fileURL?.path ?? "")
    /// ```
    /// - Parameter destination: The file URL to write; missing folders on its path are created.
    /// - Returns: The 2xx response, with an empty ``SimpleResponse/body`` and ``SimpleResponse/fileURL`` set.
    /// - Throws: ``SimpleNetworkingError``, as ``response(on:)`` describes, or
    ///   ``SimpleNetworkingError/fileFailed(reason:)`` when the file cannot be written or moved into place.
    public func download(to destination: URL) async throws(SimpleNetworkingError) -> SimpleResponse {
        guard let client else {
            throw .invalidRequest(reason: "the request is not bound to a client; use download(to:on:)")
        }
        return try await download(to: destination, on: client)
    }

    /// Runs the request on `client` and writes the body of its 2xx response to `destination`, as
    /// ``download(to:)`` describes.
    /// - Parameters:
    ///   - destination: The file URL to write; missing folders on its path are created.
    ///   - client: The client to run on.
    /// - Returns: The 2xx response, with ``SimpleResponse/fileURL`` set.
    /// - Throws: ``SimpleNetworkingError``, as ``download(to:)`` describes.
    public func download(to destination: URL, on client: SimpleNetworking) async throws(SimpleNetworkingError)
        -> SimpleResponse
    {
        guard destination.isFileURL else {
            throw .invalidRequest(reason: "the download destination must be a file URL")
        }
        state.withLock { $0.parts.receiving = .file(destination) }
        // A later run of the request keeps its body in memory again.
        defer {
            state.withLock { state in
                if case .file(let current) = state.parts.receiving, current == destination {
                    state.parts.receiving = nil
                }
            }
        }
        return try await response(on: client)
    }
}

/// The file of one download attempt: a temporary file beside the destination, written as the body arrives, then
/// moved into place when the attempt succeeded or removed when it did not.
///
/// The lock guards only the bookkeeping: every write, close and removal of the file runs outside it, since the lock
/// must never be held across blocking work. The transport writes one piece at a time, never concurrently; a
/// `discard()` that arrives while a write runs leaves the file to that write, which removes it when it returns.
final class FileDestination: ResponseDestination {
    private struct State: @unchecked Sendable {
        // @unchecked Sendable: the handle is only ever used by one thread at a time, handed out of the lock to it.
        var handle: FileHandle?
        var temporary: URL?
        /// Bytes not yet written: pieces are gathered up to ``FileDestination/writeSize`` per write, since a
        /// system call for each 16 KiB piece the platform delivers costs a third of the throughput.
        var pending = Data()
        /// Settled: later writes (from a transfer still winding down) are dropped.
        var closed = false
        /// A write runs outside the lock; whoever closes the file meanwhile leaves it to that write.
        var writing = false

        /// Takes the file out of the state, for closing and removing outside the lock.
        mutating func takeFile() -> OpenFile {
            defer {
                handle = nil
                temporary = nil
                pending = Data()
            }
            return OpenFile(handle: handle, temporary: temporary)
        }
    }

    /// A file taken out of the state, closed and removed outside the lock.
    private struct OpenFile: @unchecked Sendable {
        // @unchecked Sendable: owned by the one thread that took it out of the state.
        var handle: FileHandle?
        var temporary: URL?

        static let none = OpenFile(handle: nil, temporary: nil)

        func closeAndRemove() {
            try? handle?.close()
            if let temporary { try? FileManager.default.removeItem(at: temporary) }
        }
    }

    /// The size of each write to the file: 1 MiB.
    static let writeSize = 1024 * 1024

    let destination: URL
    private let state = Locked(State())

    init(_ destination: URL) {
        self.destination = destination
    }

    func begin(_ head: SimpleResponse) throws(SimpleNetworkingError) {
        let name = destination.lastPathComponent
        let folder = destination.deletingLastPathComponent()
        // Missing folders are made once a 2xx answer begins, so a request that fails earlier leaves none behind.
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw .fileFailed(reason: "the folders of \(name) could not be created")
        }
        let temporary = folder.appendingPathComponent(".\(name).\(UUID().uuidString).download")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: temporary)
        else { throw .fileFailed(reason: "\(name) could not be created in its directory") }
        let opened = OpenFile(handle: handle, temporary: temporary)
        // The file of an earlier hop, or the new one when the download was settled meanwhile, goes.
        let unused = state.withLock { state -> OpenFile in
            guard !state.closed else { return opened }
            let earlier = state.takeFile()
            state.handle = handle
            state.temporary = temporary
            return earlier
        }
        unused.closeAndRemove()
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
        let abandoned = state.withLock { state -> OpenFile in
            state.writing = false
            return state.closed ? state.takeFile() : .none
        }
        abandoned.closeAndRemove()
        guard written else { throw .fileFailed(reason: "\(destination.lastPathComponent) could not be written") }
    }

    /// Moves the file into place after a 2xx, removes it otherwise.
    /// - Returns: The outcome, with ``SimpleResponse/fileURL`` set, or the failure to move the file.
    func settle(_ outcome: SimpleRequest.Outcome) -> SimpleRequest.Outcome {
        guard case .success(var response) = outcome, response.isSuccess else {
            discard()
            return outcome
        }
        let name = destination.lastPathComponent
        let taken = state.withLock { state -> (file: OpenFile, pending: Data)? in
            state.closed = true
            // A write still running (the transport outlived its attempt) keeps the file and removes it.
            guard !state.writing else { return nil }
            let pending = state.pending
            return (state.takeFile(), pending)
        }
        guard let taken else { return .failure(.fileFailed(reason: "\(name) could not be written")) }
        if let handle = taken.file.handle, !taken.pending.isEmpty, !Self.write(taken.pending, to: handle) {
            taken.file.closeAndRemove()
            return .failure(.fileFailed(reason: "\(name) could not be written"))
        }
        try? taken.file.handle?.close()
        // A 2xx whose head never reached the transfer (a transport that does not stream) still gets its file.
        let source =
            taken.file.temporary ?? destination.deletingLastPathComponent().appendingPathComponent(".\(name).empty")
        if taken.file.temporary == nil, !FileManager.default.createFile(atPath: source.path, contents: nil) {
            return .failure(.fileFailed(reason: "\(name) could not be created in its directory"))
        }
        // rename(2) replaces an existing file in one step: the destination is never missing nor partial.
        guard rename(source.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: source)
            return .failure(.fileFailed(reason: "\(name) could not be moved into place"))
        }
        response.fileURL = destination
        return .success(response)
    }

    /// Closes and removes the temporary file, if any; later writes are dropped.
    func discard() {
        let file = state.withLock { state -> OpenFile in
            state.closed = true
            return state.writing ? .none : state.takeFile()
        }
        file.closeAndRemove()
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
