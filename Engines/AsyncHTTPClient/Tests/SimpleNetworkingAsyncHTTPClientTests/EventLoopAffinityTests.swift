import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

@Suite("AsyncHTTPClient engine: event loops")
struct EventLoopAffinityTests {
    @Test("Every request to one origin runs on one event loop, sequential or concurrent, from any task")
    func oneLoopPerOrigin() async throws {
        let (group, loops, server) = try Self.fourLoopsAndServer()
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport(eventLoopGroup: group)

        // Before, each request took the group's next loop: sequential requests alternated between loops, and those on
        // the loop without the connection switched threads at every step of the response.
        var seen: [Int] = []
        for _ in 0..<12 { seen.append(try await Self.loop(of: transport, server.url("/one"), among: loops)) }
        let connections = Set(server.requests.map(\.connectionIndex))
        #expect(connections.count == 1, "sequential requests opened \(connections.count) connections")
        let concurrent = try await withThrowingTaskGroup(of: Int.self) { tasks in
            for _ in 0..<24 {
                tasks.addTask { try await Self.loop(of: transport, server.url("/many"), among: loops) }
            }
            var found: [Int] = []
            for try await index in tasks { found.append(index) }
            return found
        }
        seen += concurrent
        #expect(Set(seen).count == 1, "requests to one origin ran on loops \(Set(seen).sorted())")
        #expect(!seen.contains(-1), "a response ran on none of the group's loops")

        try await transport.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("Transports to one origin spread over the loops: each draws its own")
    func transportsSpread() async throws {
        let (group, loops, server) = try Self.fourLoopsAndServer()
        defer { server.shutdown() }
        var found = Set<Int>()
        // 16 transports land on one of 4 loops all alike with a chance of 4 in 4^16.
        for _ in 0..<16 {
            let transport = AsyncHTTPClientTransport(eventLoopGroup: group)
            found.insert(try await Self.loop(of: transport, server.url("/"), among: loops))
            try await transport.shutdown()
        }
        #expect(found.count > 1, "16 transports all ran on loop \(found.sorted())")
        try await group.shutdownGracefully()
    }

    /// A group of four loops, its loops, and a server that answers every request with a short text.
    private static func fourLoopsAndServer() throws -> (MultiThreadedEventLoopGroup, [any EventLoop], MockServer) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        let server = try MockServer()
        server.route { _ in .text("ok") }
        return (group, Array(group.makeIterator()), server)
    }

    /// The index among `loops` of the loop on which the response's head reached the transfer, -1 for none of them.
    private static func loop(of transport: AsyncHTTPClientTransport, _ url: URL, among loops: [any EventLoop])
        async throws -> Int
    {
        let index = NIOLockedValueBox(-1)
        let transfer = HTTPTransfer(
            head: { _ in index.withLockedValue { $0 = loops.firstIndex { $0.inEventLoop } ?? -1 } }, body: { _ in })
        _ = try await transport.send(
            HTTPRequest(method: .get, url: url), options: TransportOptions(timeout: 10), transfer: transfer)
        return index.withLockedValue { $0 }
    }
}
