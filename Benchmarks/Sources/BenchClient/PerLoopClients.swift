import AsyncHTTPClient
import Foundation
import NIOCore

/// AsyncHTTPClient without the library, sent the way the engine sends: one `HTTPClient` per event loop of the
/// process-wide group, which share the default 8 connections per host, each request to the client with the fewest in
/// flight. It tells what the engine's routing costs from what its API costs ("The engine on every core" in the
/// Performance article):
/// - `async`: AsyncHTTPClient's async API (`execute(_:timeout:)`, whose deadline ends when the head arrives);
/// - `asyncWithBodyDeadline`: the same, with what the engine would add to keep its deadline over the body: a timer
///   on the request's loop, and the body read in a task of its own, which the timer could cancel;
/// - `delegate`: the delegate API the engine is built on (`execute(request:delegate:eventLoop:deadline:)`, a deadline
///   that covers the body), started on the client's loop, with a delegate that only counts the body's bytes.
final class PerLoopClients: Client, @unchecked Sendable {
    // @unchecked Sendable: `inFlight` is read and changed only under `lock`; the rest is constant.
    enum API {
        case async, asyncWithBodyDeadline, delegate
    }

    private let url: URL
    private let api: API
    private let loops: [any EventLoop]
    private let clients: [HTTPClient]
    private let lock = NSLock()
    private var inFlight: [Int]

    init(url: URL, api: API) {
        self.url = url
        self.api = api
        loops = Array(HTTPClient.defaultEventLoopGroup.makeIterator())
        let share = max(1, 8 / loops.count)
        clients = loops.map { loop in
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: share)
            // The async API runs a request on a loop of the client's group: the client's one loop. The delegate API
            // is told the loop with each request.
            return HTTPClient(
                eventLoopGroup: api == .delegate ? HTTPClient.defaultEventLoopGroup : loop,
                configuration: configuration)
        }
        inFlight = Array(repeating: 0, count: loops.count)
    }

    func fetch() async throws -> Int {
        let index = lock.withLock {
            let index = inFlight.indices.min { inFlight[$0] < inFlight[$1] } ?? 0
            inFlight[index] += 1
            return index
        }
        defer { lock.withLock { inFlight[index] -= 1 } }
        switch api {
        case .async, .asyncWithBodyDeadline:
            let deadline = api == .async ? nil : loops[index].scheduleTask(in: .seconds(30)) {}
            defer { deadline?.cancel() }
            let response = try await clients[index].execute(
                HTTPClientRequest(url: url.absoluteString), timeout: .seconds(30))
            guard response.status == .ok else { throw BenchError.status }
            guard api == .asyncWithBodyDeadline else {
                return try await response.body.collect(upTo: 1 << 20).readableBytes
            }
            let body = Task { try await response.body.collect(upTo: 1 << 20).readableBytes }
            return try await withTaskCancellationHandler {
                try await body.value
            } onCancel: {
                body.cancel()
            }
        case .delegate:
            let request = try HTTPClient.Request(url: url)
            let (client, loop) = (clients[index], loops[index])
            return try await withUnsafeThrowingContinuation { continuation in
                loop.execute {
                    let task = client.execute(
                        request: request, delegate: ByteCounter(), eventLoop: .delegate(on: loop),
                        deadline: .now() + .seconds(30))
                    task.futureResult.whenComplete { continuation.resume(with: $0) }
                }
            }
        }
    }

    func close() async {
        for client in clients { try? await client.shutdown() }
    }
}
