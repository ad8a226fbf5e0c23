import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

// A small HTTP/1.1 keep-alive server for the benchmarks, on one event loop thread: every GET gets the same 91-byte
// JSON, and `GET /accepts` answers how many connections it has accepted, so a client's new connections can be counted.
// `GET /large/N` answers N MiB of zeros, written as the connection drains; a request body is read and dropped.
// `GET /gzip` answers the bytes of the file named by the environment variable BENCH_GZIP_FILE with
// `Content-Encoding: gzip` (a compression bomb, for the size limit's memory). `GET /events/N` answers N MiB of
// `text/event-stream` (EventStream.swift), chunked, written as the connection drains; the stream for the size in the
// environment variable BENCH_EVENTS_MIB is made before the server listens, any other on its first request.
// `GET /delay/N` answers the JSON after N seconds, for the CPU a client spends while it waits. `GET /cached-json`,
// `/etag-json` and `/no-store-json` answer the JSON with caching headers, for the HTTP cache's clients
// (CacheRoutes.swift).
// Usage: bench-server PORT (0 for any); it prints the port it listens on.

/// The 91-byte JSON every request gets.
let payload = #"{"id":12345,"name":"SimpleNetworking benchmarks","tags":["swift","http","bench"],"ok":true}"#

/// Counts accepted connections; touched only on the server's one event loop.
final class Acceptances: @unchecked Sendable {
    // @unchecked Sendable: only the server's single event loop reads and writes `count`.
    var count = 0
}

/// The event streams made so far, by size in MiB; touched only on the server's one event loop (and before it runs).
final class EventStreams: @unchecked Sendable {
    // @unchecked Sendable: only the server's single event loop reads and writes `bodies`, once it runs.
    private var bodies: [Int: ByteBuffer] = [:]

    func body(mebibytes: Int) -> ByteBuffer {
        if let body = bodies[mebibytes] { return body }
        let body = ByteBufferAllocator().buffer(bytes: makeEventStream(size: mebibytes << 20))
        bodies[mebibytes] = body
        return body
    }
}

final class Responder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let acceptances: Acceptances
    private let eventStreams: EventStreams
    private var keepAlive = true
    private var path = ""
    /// The request's `If-None-Match`, for the cache routes.
    private var ifNoneMatch: String?
    /// Bytes of a large body still to write.
    private var left = 0
    /// The large body being written, when it is not zeros.
    private var source: ByteBuffer?
    private static let piece = 256 * 1024

    init(acceptances: Acceptances, eventStreams: EventStreams) {
        self.acceptances = acceptances
        self.eventStreams = eventStreams
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            path = head.uri
            ifNoneMatch = head.headers.first(name: "If-None-Match")
        case .body:
            break
        case .end:
            if path.hasPrefix("/large/"), let mebibytes = Int(path.dropFirst(7)) {
                return startLarge(context: context, size: mebibytes << 20)
            }
            if path.hasPrefix("/events/"), let mebibytes = Int(path.dropFirst(8)) {
                return startEvents(context: context, mebibytes: mebibytes)
            }
            if path == "/gzip" { return sendGzip(context: context) }
            if path.hasPrefix("/delay/"), let seconds = Int64(path.dropFirst(7)) {
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .seconds(seconds)) {
                    let (responder, context) = bound.value
                    responder.send(payload, context: context)
                }
                return
            }
            if let answer = CacheRoute(path: path)?.answer(ifNoneMatch: ifNoneMatch) {
                return send(answer.body, status: answer.status, headers: answer.headers, context: context)
            }
            send(path == "/accepts" ? String(acceptances.count) : payload, context: context)
        }
    }

    /// Answers `body` as JSON (with `status` and `extra` header fields), and closes the connection after it unless the
    /// request kept it alive.
    private func send(
        _ body: String, status: HTTPResponseStatus = .ok, headers extra: [(String, String)] = [],
        context: ChannelHandlerContext
    ) {
        var headers = HTTPHeaders()
        if status != .notModified { headers.add(name: "Content-Type", value: "application/json") }
        if status != .notModified { headers.add(name: "Content-Length", value: String(body.utf8.count)) }
        for (name, value) in extra { headers.add(name: name, value: value) }
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if !body.isEmpty {
            let buffer = context.channel.allocator.buffer(string: body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let keepAlive = keepAlive
        // The context is used on its event loop only, where the write completes.
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            if !keepAlive { bound.value.close(promise: nil) }
        }
    }

    private func startLarge(context: ChannelHandlerContext, size: Int) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/octet-stream")
        headers.add(name: "Content-Length", value: String(size))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))))
            .whenComplete { _ in }
        source = nil
        left = size
        writeLarge(context: context)
    }

    /// The event stream without a length, so chunked, as servers send event streams.
    private func startEvents(context: ChannelHandlerContext, mebibytes: Int) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream")
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))))
            .whenComplete { _ in }
        let body = eventStreams.body(mebibytes: mebibytes)
        source = body
        left = body.readableBytes
        writeLarge(context: context)
    }

    /// Writes pieces while the connection can take them; the rest when it is writable again.
    private func writeLarge(context: ChannelHandlerContext) {
        let zeros = context.channel.allocator.buffer(repeating: 0, count: source == nil ? Self.piece : 0)
        while left > 0, context.channel.isWritable {
            let count = min(left, Self.piece)
            let piece =
                if let source {
                    source.getSlice(at: source.readableBytes - left, length: count) ?? zeros
                } else {
                    zeros.getSlice(at: 0, length: count) ?? zeros
                }
            left -= count
            context.write(wrapOutboundOut(.body(.byteBuffer(piece)))).whenComplete { _ in }
        }
        if left == 0 {
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in }
            left = -1
        } else {
            context.flush()
        }
    }

    private func sendGzip(context: ChannelHandlerContext) {
        let bytes = ProcessInfo.processInfo.environment["BENCH_GZIP_FILE"].flatMap {
            FileManager.default.contents(atPath: $0)
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Encoding", value: "gzip")
        headers.add(name: "Content-Length", value: String(bytes?.count ?? 0))
        let status: HTTPResponseStatus = bytes == nil ? .notFound : .ok
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))))
            .whenComplete { _ in }
        if let bytes {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))))
                .whenComplete { _ in }
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if left > 0, context.channel.isWritable { writeLarge(context: context) }
        context.fireChannelWritabilityChanged()
    }
}

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 0 : 0
let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let acceptances = Acceptances()
let eventStreams = EventStreams()
if let mebibytes = ProcessInfo.processInfo.environment["BENCH_EVENTS_MIB"].flatMap({ Int($0) }) {
    _ = eventStreams.body(mebibytes: mebibytes)
}
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(ChannelOptions.backlog, value: 1024)
    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        acceptances.count += 1
        // On the channel's event loop, where the handler is made and added.
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(
                Responder(acceptances: acceptances, eventStreams: eventStreams))
        }
    }
do {
    let channel = try bootstrap.bind(host: "127.0.0.1", port: port).wait()
    // Unbuffered: the runner waits for this line.
    FileHandle.standardOutput.write(Data("listening on \(channel.localAddress?.port ?? 0)\n".utf8))
    try channel.closeFuture.wait()
} catch {
    print("bench-server: \(error)")
    exit(1)
}
