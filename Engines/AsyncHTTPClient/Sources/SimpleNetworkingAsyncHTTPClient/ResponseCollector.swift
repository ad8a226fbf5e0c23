import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SimpleNetworking

/// Collects one response for ``AsyncHTTPClientTransport``: its head, and its decoded body up to the size limit,
/// counted as the bytes arrive, so that a body past the limit is stopped after one chunk, not buffered.
final class ResponseCollector: HTTPClientResponseDelegate, @unchecked Sendable {
    // @unchecked Sendable: AsyncHTTPClient calls every method on the request's one event loop, in order; the caller
    // reads `receivedHead` only after the task's future has completed, which orders it after every call.
    typealias Response = (head: HTTPResponseHead, body: Data)

    /// The error that stops a body past the limit; the transport turns it into `responseTooLarge(limit:)`.
    struct TooLarge: Error {
        let limit: Int
    }

    private let maximumBodySize: Int
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(maximumBodySize: Int) {
        self.maximumBodySize = maximumBodySize
    }

    /// Whether the response head arrived: a connection lost after it cut the body short.
    var receivedHead: Bool { head != nil }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        self.head = head
        // A declared length counts only when it is the decoded length: no content coding.
        let coded = head.headers.contains(name: "Content-Encoding")
        if !coded, let declared = head.headers.first(name: "Content-Length").flatMap({ Int($0) }) {
            guard declared <= maximumBodySize else {
                return task.eventLoop.makeFailedFuture(TooLarge(limit: maximumBodySize))
            }
            body.reserveCapacity(declared)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        // Parts arrive decoded: AsyncHTTPClient decompresses before this call.
        guard buffer.readableBytes <= maximumBodySize - body.readableBytes else {
            return task.eventLoop.makeFailedFuture(TooLarge(limit: maximumBodySize))
        }
        var buffer = buffer
        body.writeBuffer(&buffer)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        guard let head else { throw HTTPClientError.remoteConnectionClosed }
        return (head, Data(body.readableBytesView))
    }
}
