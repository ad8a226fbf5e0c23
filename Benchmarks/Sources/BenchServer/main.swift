import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

// A small HTTP/1.1 keep-alive server for the benchmarks, on one event loop thread: every GET gets the same 91-byte
// JSON, and `GET /accepts` answers how many connections it has accepted, so a client's new connections can be counted.
// `GET /large/N` answers N MiB of zeros, written as the connection drains; a request body is read and dropped.
// `GET /gzip` answers the bytes of the file named by the environment variable BENCH_GZIP_FILE with
// `Content-Encoding: gzip` (a compression bomb, for the size limit's memory).
// Usage: bench-server PORT (0 for any); it prints the port it listens on.

/// The 91-byte JSON every request gets.
let payload = #"{"id":12345,"name":"SimpleNetworking benchmarks","tags":["swift","http","bench"],"ok":true}"#

/// Counts accepted connections; touched only on the server's one event loop.
final class Acceptances: @unchecked Sendable {
    // @unchecked Sendable: only the server's single event loop reads and writes `count`.
    var count = 0
}

final class Responder: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let acceptances: Acceptances
    private var keepAlive = true
    private var path = ""
    /// Bytes of a large body still to write.
    private var left = 0
    private static let piece = 256 * 1024

    init(acceptances: Acceptances) {
        self.acceptances = acceptances
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            path = head.uri
        case .body:
            break
        case .end:
            if path.hasPrefix("/large/"), let mebibytes = Int(path.dropFirst(7)) {
                return startLarge(context: context, size: mebibytes << 20)
            }
            if path == "/gzip" { return sendGzip(context: context) }
            let body = path == "/accepts" ? String(acceptances.count) : payload
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let buffer = context.channel.allocator.buffer(string: body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            let keepAlive = keepAlive
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
                if !keepAlive { context.close(promise: nil) }
            }
        }
    }

    private func startLarge(context: ChannelHandlerContext, size: Int) {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/octet-stream")
        headers.add(name: "Content-Length", value: String(size))
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))))
            .whenComplete { _ in }
        left = size
        writeLarge(context: context)
    }

    /// Writes pieces while the connection can take them; the rest when it is writable again.
    private func writeLarge(context: ChannelHandlerContext) {
        let zeros = context.channel.allocator.buffer(repeating: 0, count: Self.piece)
        while left > 0, context.channel.isWritable {
            let count = min(left, Self.piece)
            left -= count
            context.write(wrapOutboundOut(.body(.byteBuffer(zeros.getSlice(at: 0, length: count) ?? zeros))))
                .whenComplete { _ in }
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
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(ChannelOptions.backlog, value: 1024)
    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        acceptances.count += 1
        return channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
            channel.pipeline.addHandler(Responder(acceptances: acceptances))
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
