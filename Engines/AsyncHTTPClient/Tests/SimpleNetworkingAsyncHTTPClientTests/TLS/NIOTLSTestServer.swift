import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An HTTPS server on 127.0.0.1, port 0, in the test process: SwiftNIO with NIOSSL, speaking HTTP/2 to a client that
/// offers "h2" by ALPN and HTTP/1.1 to one that does not. It answers every request `200` with the body `ok`, after
/// `responseDelay`, and counts what it sees: accepted connections, requests, and requests open at once.
final class NIOTLSTestServer: Sendable {
    /// What the server saw.
    struct Seen: Sendable {
        /// TCP connections accepted, whether their handshake succeeded or not.
        var connections = 0
        /// Requests answered, by HTTP version ("HTTP/1.1", "HTTP/2").
        var requests: [String] = []
        /// Requests open at once, the most.
        var mostOpenAtOnce = 0
        var open = 0
    }

    private let channel: any Channel
    private let state: NIOLockedValueBox<Seen>
    /// The port the server listens on.
    let port: Int

    /// The server's URL for `path`, on 127.0.0.1.
    func url(_ path: String = "/") -> URL {
        var components = URLComponents()
        (components.scheme, components.host, components.port, components.path) = ("https", "127.0.0.1", port, path)
        return components.url ?? URL(fileURLWithPath: "/")
    }

    /// What the server has seen so far.
    var seen: Seen { state.withLockedValue { $0 } }

    /// Starts a server.
    /// - Parameters:
    ///   - certificate: The server's chain and key.
    ///   - clientCA: When given, a client certificate issued by this CA is required.
    ///   - maximumVersion: The newest TLS version the server speaks; `nil` for TLS 1.3.
    ///   - responseDelay: How long each response waits, so that concurrent requests overlap.
    init(
        certificate: TLSFixtures.Server, clientCA: NIOSSLCertificate? = nil, maximumVersion: TLSVersion? = nil,
        responseDelay: TimeAmount = .zero
    ) async throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: certificate.chain.map { .certificate($0) }, privateKey: .privateKey(certificate.key))
        configuration.applicationProtocols = ["h2", "http/1.1"]
        configuration.maximumTLSVersion = maximumVersion
        if let clientCA {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([clientCA])
        }
        let context = try NIOSSLContext(configuration: configuration)
        let state = NIOLockedValueBox(Seen())
        self.state = state
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                state.withLockedValue { $0.connections += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: { channel in
                            channel.configureHTTP2Pipeline(mode: .server) { stream in
                                stream.eventLoop.makeCompletedFuture {
                                    try stream.pipeline.syncOperations.addHandlers([
                                        HTTP2FramePayloadToHTTP1ServerCodec(),
                                        Responder(state: state, version: "HTTP/2", delay: responseDelay),
                                    ])
                                }
                            }.map { _ in }
                        },
                        http1ChannelConfigurator: { channel in
                            channel.pipeline.configureHTTPServerPipeline().flatMap {
                                channel.pipeline.addHandler(
                                    Responder(state: state, version: "HTTP/1.1", delay: responseDelay))
                            }
                        })
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Stops listening and closes the server's connections.
    func stop() async {
        try? await channel.close()
    }
}

/// Answers each request `200 ok` after a delay, counting requests open at once.
private final class Responder: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: NIOLockedValueBox<NIOTLSTestServer.Seen>
    private let version: String
    private let delay: TimeAmount

    init(state: NIOLockedValueBox<NIOTLSTestServer.Seen>, version: String, delay: TimeAmount) {
        self.state = state
        self.version = version
        self.delay = delay
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        state.withLockedValue { seen in
            seen.open += 1
            seen.mostOpenAtOnce = max(seen.mostOpenAtOnce, seen.open)
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
            state.withLockedValue { seen in
                seen.open -= 1
                seen.requests.append(version)
            }
            let head = HTTPResponseHead(
                version: .http1_1, status: .ok, headers: ["content-length": "2", "content-type": "text/plain"])
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: "ok")))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
