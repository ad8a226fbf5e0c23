import Foundation

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
    /// A retry after the connection was lost part-way resumes where the file stopped, with a range request
    /// (`Range`, `If-Range`), when the first answer allows it: a strong `ETag` or `Last-Modified`, and no content
    /// coding. A server that answers the range with the whole file (`200`, its file changed, say) gets the file
    /// written again from the start; one whose `206` does not start where the file ends fails the attempt
    /// (``TransportFailure/Category/badServerResponse``). With `resumable: true`, a download that fails keeps what it
    /// received for a later call with the same destination (<doc:LargeTransfers#Resuming-a-download>).
    ///
    /// ```swift
    /// let file = URL(fileURLWithPath: "/tmp/archive.zip")
    /// let response = try await api.get("/archive.zip").download(to: file)
    /// print(response.fileURL?.path ?? "")
    /// ```
    /// - Parameters:
    ///   - destination: The file URL to write; missing folders on its path are created.
    ///   - resumable: Whether a failed download keeps its partial file, beside the destination, for the next
    ///     `download(to:resumable: true)` of the same destination to continue. Default: `false`, the partial file is
    ///     removed when the download fails.
    /// - Returns: The 2xx response, with an empty ``SimpleResponse/body`` and ``SimpleResponse/fileURL`` set.
    /// - Throws: ``SimpleNetworkingError``, as ``response(on:)`` describes, or
    ///   ``SimpleNetworkingError/fileFailed(reason:)`` when the file cannot be written or moved into place.
    public func download(to destination: URL, resumable: Bool = false) async throws(SimpleNetworkingError)
        -> SimpleResponse
    {
        guard let client else {
            throw .invalidRequest(reason: "the request is not bound to a client; use download(to:on:)")
        }
        return try await download(to: destination, resumable: resumable, on: client)
    }

    /// Runs the request on `client` and writes the body of its 2xx response to `destination`, as
    /// ``download(to:resumable:)`` describes.
    /// - Parameters:
    ///   - destination: The file URL to write; missing folders on its path are created.
    ///   - resumable: Whether a failed download keeps its partial file for a later call. Default: `false`.
    ///   - client: The client to run on.
    /// - Returns: The 2xx response, with ``SimpleResponse/fileURL`` set.
    /// - Throws: ``SimpleNetworkingError``, as ``download(to:resumable:)`` describes.
    public func download(to destination: URL, resumable: Bool = false, on client: SimpleNetworking)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        guard destination.isFileURL else {
            throw .invalidRequest(reason: "the download destination must be a file URL")
        }
        let file = DownloadFile(destination, resumable: resumable)
        state.withLock { $0.parts.receiving = .file(file) }
        defer {
            // A later run of the request keeps its body in memory again.
            state.withLock { state in
                if case .file(let current) = state.parts.receiving, current === file { state.parts.receiving = nil }
            }
            file.end()
        }
        return try await response(on: client)
    }
}
