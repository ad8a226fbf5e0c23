import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SimpleNetworking

/// Streams one response for ``AsyncHTTPClientTransport`` into the client's transfer: the head once, then each decoded
/// piece of the body as it arrives, counted against the size limit before it is handed over. Nothing is allocated
/// from a declared `Content-Length`, and nothing of the body is kept here.
///
/// Backpressure: AsyncHTTPClient reads the next piece from the connection only once the future returned for the last
/// one has completed, and for a reader that runs at its own pace (a response stream) that future completes when the
/// reader has taken the piece.
final class ResponseStreamer: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked Sendable: AsyncHTTPClient calls every method on the request's one event loop, in order, and never
    // calls the next body part before the last one's future completed; the caller reads `receivedHead` only after
    // the task's future has completed, which orders it after every call.
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
        for (name, value) in head.headers { fields.append(LibraryHeaderField(name: name, value: value)) }
        let response = SimpleResponse(statusCode: Int(head.status.code), headers: LibraryHeaders(fields), url: url)
        self.head = response
        do {
            try transfer.receive(head: response)
        } catch {
            return task.eventLoop.makeFailedFuture(Stopped(error: error))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        // Parts arrive decoded, in steps of at most a few times the compressed piece: each is counted before it is
        // handed over, so a compression bomb stops at the first piece past the limit.
        guard buffer.readableBytes <= maximumBodySize - received else {
            return task.eventLoop.makeFailedFuture(TooLarge(limit: maximumBodySize))
        }
        received += buffer.readableBytes
        let bytes = Data(buffer.readableBytesView)
        guard transfer.waitsForReader else {
            do {
                try transfer.receive(bytes)
            } catch {
                return task.eventLoop.makeFailedFuture(Stopped(error: error))
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let taken = task.eventLoop.makePromise(of: Void.self)
        Task { [transfer] in
            do throws(SimpleNetworkingError) {
                try await transfer.deliver(bytes)
                taken.succeed()
            } catch {
                taken.fail(Stopped(error: error))
            }
        }
        return taken.futureResult
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return head
    }
}
