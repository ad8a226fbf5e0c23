import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SimpleNetworking
import SimpleNetworkingContentDecoding

/// Streams one response for ``AsyncHTTPClientTransport`` into the client's transfer: the head once, then each decoded
/// piece of the body as it arrives, counted against the size limit before it is handed over. Nothing is allocated
/// from a declared `Content-Length`, and nothing of the body is kept here. A gzip or deflate body is decoded here
/// (`ContentDecoder`), in pieces of at most 64 KiB, each made only once the reader has taken the last.
///
/// Backpressure: AsyncHTTPClient reads the next piece from the connection only once the future returned for the last
/// one has completed, and for a reader that runs at its own pace (a response stream) that future completes when the
/// reader has taken the piece. A piece the reader's buffer has room for is taken at once, on the event loop, and the
/// future returned completed: AsyncHTTPClient then holds nothing back, which matters because it drops the pieces it
/// holds back when the connection fails (the events before a dropped connection must reach an event stream's
/// reader). Only a full buffer leaves the future pending.
final class ResponseStreamer: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked Sendable: AsyncHTTPClient calls every method on the request's one event loop, in order, and never
    // calls the next body part before the last one's future completed; a part for a reader at its own pace is decoded
    // and delivered on the loop while the reader has room, then (from the first piece it has none for) in a task that
    // completes that future last, so it too runs before the next call; the caller reads `receivedHead` only after the
    // task's future has completed, which orders it after every call.
    typealias Response = SimpleResponse

    /// The error that stops a body past the limit; the transport turns it into `responseTooLarge(limit:)`.
    struct TooLarge: Error {
        let limit: Int
    }

    /// An error the transfer threw, which the transport fails with as it is.
    struct Stopped: Error {
        let error: SimpleNetworkingError
    }

    private let maximumBodySize: Int
    private let transfer: HTTPTransfer
    private let url: URL
    private let bodySize: Int64?
    private var head: SimpleResponse?
    private var received = 0
    /// The body's decoder, when its `Content-Encoding` is gzip or deflate.
    private var decoder: ContentDecoder?
    private var sent: Int64 = 0

    init(transfer: HTTPTransfer, maximumBodySize: Int, url: URL, bodySize: Int64?) {
        self.transfer = transfer
        self.maximumBodySize = maximumBodySize
        self.url = url
        self.bodySize = bodySize
    }

    /// Whether the response head arrived: a connection lost after it cut the body short.
    var receivedHead: Bool { head != nil }

    func didSendRequestPart(task: HTTPClient.Task<Response>, _ part: IOData) {
        sent += Int64(part.readableBytes)
        transfer.didSend(sent, of: bodySize)
    }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        var fields: [LibraryHeaderField] = []
        fields.reserveCapacity(head.headers.count)
        var encodings: [String] = []
        for (name, value) in head.headers {
            fields.append(LibraryHeaderField(name: name, value: value))
            if name.utf8.count == 16, name.lowercased() == "content-encoding" { encodings.append(value) }
        }
        // One coding in one field is decoded; several stacked are handed over as they came, as is any other.
        if encodings.count == 1 { decoder = ContentDecoder(contentEncoding: encodings[0]) }
        let version = HTTPProtocolVersion(major: Int(head.version.major), minor: Int(head.version.minor))
        let response = SimpleResponse(
            statusCode: Int(head.status.code), headers: LibraryHeaders(fields), url: url, httpVersion: version)
        self.head = response
        do {
            try transfer.receive(head: response)
        } catch {
            return task.eventLoop.makeFailedFuture(Stopped(error: error))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        decoder?.start(Data(buffer.readableBytesView))
        guard transfer.waitsForReader else {
            // A reader that takes each piece at once (a collector, a file): all of this part's pieces now.
            do {
                if let decoder {
                    while let piece = try decoder.nextPiece() { try receive(piece) }
                } else {
                    try receive(Data(buffer.readableBytesView))
                }
            } catch {
                return task.eventLoop.makeFailedFuture(error)
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        // A reader at its own pace: the pieces it has room for now, at once; from the first it has no room for, each
        // piece once it has taken the last, and the next part only after all of them.
        let waiting: Data
        do {
            if let decoder {
                guard let piece = try takeWhileReady(from: decoder) else {
                    return task.eventLoop.makeSucceededVoidFuture()
                }
                waiting = piece
            } else {
                let piece = Data(buffer.readableBytesView)
                if try receiveIfReady(piece) { return task.eventLoop.makeSucceededVoidFuture() }
                waiting = piece
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        let taken = task.eventLoop.makePromise(of: Void.self)
        Task {
            do {
                try await deliver(waiting, counted: true)
                if let decoder {
                    while let piece = try decoder.nextPiece() { try await deliver(piece) }
                }
                taken.succeed()
            } catch {
                taken.fail(error)
            }
        }
        return taken.futureResult
    }

    /// Hands the decoder's pieces to the reader while it has room for them.
    /// - Returns: The first piece it had no room for (counted against the limit), or `nil` when it took them all.
    private func takeWhileReady(from decoder: ContentDecoder) throws -> Data? {
        while let piece = try decoder.nextPiece() {
            if try !receiveIfReady(piece) { return piece }
        }
        return nil
    }

    /// Counts `count` more decoded bytes, or throws ``TooLarge`` when they would pass the limit: each piece is
    /// checked before it is handed over, so a compression bomb stops at the first piece past the limit.
    private func checkLimit(adding count: Int) throws(TooLarge) {
        guard count <= maximumBodySize - received else { throw TooLarge(limit: maximumBodySize) }
        received += count
    }

    /// Hands `piece` to a reader that takes it at once.
    private func receive(_ piece: Data) throws {
        try checkLimit(adding: piece.count)
        do throws(SimpleNetworkingError) {
            try transfer.receive(piece)
        } catch {
            throw Stopped(error: error)
        }
    }

    /// Hands `piece` to a reader at its own pace if it has room for it now; counts it against the limit either way.
    /// - Returns: Whether the reader took it; when not, ``deliver(_:counted:)`` must hand it over.
    private func receiveIfReady(_ piece: Data) throws -> Bool {
        try checkLimit(adding: piece.count)
        do throws(SimpleNetworkingError) {
            return try transfer.receiveIfReady(piece)
        } catch {
            throw Stopped(error: error)
        }
    }

    /// Hands `piece` to a reader at its own pace, and returns once it has taken it.
    /// - Parameter counted: Whether `piece` was already counted against the limit.
    private func deliver(_ piece: Data, counted: Bool = false) async throws {
        if !counted { try checkLimit(adding: piece.count) }
        do throws(SimpleNetworkingError) {
            try await transfer.deliver(piece)
        } catch {
            throw Stopped(error: error)
        }
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        try decoder?.finish()
        return head
    }
}
