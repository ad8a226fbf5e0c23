import AsyncHTTPClient
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
    @Test("Sequential requests to one origin stay on one event loop and one connection, from any task")
    func sequentialStayOnOneLoop() async throws {
        let (group, loops, server) = try Self.fourLoopsAndServer()
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport(eventLoopGroup: group)

        // Before the loop per origin, each request took the group's next loop: sequential requests alternated between
        // loops, and those on the loop without the connection switched threads at every step of the response.
        var seen: [Int] = []
        for index in 0..<12 {
            let task = Task { try await Self.loop(of: transport, server.url("/one/\(index)"), among: loops) }
            seen.append(try await task.value)
        }
        let connections = Set(server.requests.map(\.connectionIndex))
        #expect(connections.count == 1, "sequential requests opened \(connections.count) connections")
        #expect(Set(seen).count == 1, "sequential requests ran on loops \(Set(seen).sorted())")
        #expect(!seen.contains(-1), "a response ran on none of the group's loops")

        try await transport.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("One origin's concurrent requests spread over the loops, each response on its connection's loop")
    func concurrentSpreadOverLoops() async throws {
        let (group, loops, server) = try Self.fourLoopsAndServer(delay: 0.3)
        defer { server.shutdown() }
        let transport = AsyncHTTPClientTransport(eventLoopGroup: group)

        // 24 requests at once, each answered after 0.3 s, so that they overlap: the transport's 8 connections to the
        // origin are spread over its four loops (2 each), and each connection's responses all run on one loop.
        let loopOfPath = try await Self.concurrentLoops(of: transport, server, count: 24, among: loops)
        #expect(!loopOfPath.values.contains(-1), "a response ran on none of the group's loops")
        #expect(Set(loopOfPath.values).count > 1, "24 requests at once all ran on loop \(Set(loopOfPath.values))")
        var loopsOfConnection: [Int: Set<Int>] = [:]
        for request in server.requests {
            guard let loop = loopOfPath[request.path] else { continue }
            loopsOfConnection[request.connectionIndex, default: []].insert(loop)
        }
        #expect(loopsOfConnection.count <= 8, "\(loopsOfConnection.count) connections, above the limit of 8")
        for (connection, found) in loopsOfConnection {
            #expect(found.count == 1, "the responses of connection \(connection) ran on loops \(found.sorted())")
        }

        try await transport.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("The transport's clients share maximumConnectionsPerHost: 2 connections over 4 loops")
    func connectionLimitShared() async throws {
        let (group, loops, server) = try Self.fourLoopsAndServer(delay: 0.3)
        defer { server.shutdown() }
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.maximumConnectionsPerHost = 2
        let transport = AsyncHTTPClientTransport(configuration: configuration, eventLoopGroup: group)

        let loopOfPath = try await Self.concurrentLoops(of: transport, server, count: 12, among: loops)
        let connections = Set(server.requests.map(\.connectionIndex))
        #expect(connections.count == 2, "12 requests at once opened \(connections.count) connections")
        #expect(Set(loopOfPath.values).count == 2, "the requests ran on loops \(Set(loopOfPath.values).sorted())")

        try await transport.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("Each origin has its own share: one origin's full share keeps no request to another origin waiting")
    func originsHaveTheirOwnShares() async throws {
        let (group, _, server) = try Self.fourLoopsAndServer()
        defer { server.shutdown() }
        let gate = Gate()
        defer { gate.open() }
        server.route { request in
            if request.path.hasPrefix("/long") { gate.wait() }
            return MockResponse.text("ok")
        }
        // Two clients of one connection each; two /long requests take both of 127.0.0.1's shares until the gate opens.
        let transport = Self.transport(limit: 2, on: group)
        let long = (0..<2).map { index in
            Task { try await Self.send(transport, server.url("/long/\(index)"), timeout: 60) }
        }
        #expect(await Self.eventually { server.requestCount == 2 })

        // The same server as localhost is another origin, with shares of its own: sent, and answered, while both /long
        // requests are held.
        try await Self.send(transport, server.url("/other", host: "localhost"))
        #expect(server.requestCount == 3)
        // Back to 127.0.0.1, whose share is still full: the request waits for a /long one to end.
        let third = Task { try await Self.send(transport, server.url("/third")) }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(server.requestCount == 3, "a third request to 127.0.0.1 went out while its 2 shares were taken")
        gate.open()
        for task in long { try await task.value }
        try await third.value
        #expect(server.requestCount == 4)

        try await transport.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("A request beyond every client's share starts on the first client whose request ends, not its own queue")
    func waitingRequestTakesTheFirstFreeClient() async throws {
        let (group, _, server) = try Self.fourLoopsAndServer()
        defer { server.shutdown() }
        let gate = Gate()
        defer { gate.open() }
        // /long is answered once the gate opens, /short after 0.2 s, /next at once.
        server.route { request in
            var response = MockResponse.text("ok")
            if request.path == "/long" { gate.wait() }
            if request.path == "/short" { response.faults = [.delayHeaders(0.2)] }
            return response
        }
        // Two clients of one connection each: /long takes one, /short the other, /next waits for either.
        let transport = Self.transport(limit: 2, on: group)
        let long = Task { try await Self.send(transport, server.url("/long"), timeout: 60) }
        #expect(await Self.eventually { server.requestCount == 1 })
        let short = Task { try await Self.send(transport, server.url("/short")) }
        #expect(await Self.eventually { server.requestCount == 2 })
        // /long is held until the gate opens: /next can only have gone out on the client that /short freed.
        try await Self.send(transport, server.url("/next"))
        try await short.value
        gate.open()
        try await long.value
        #expect(Set(server.requests.map(\.connectionIndex)).count == 2)

        try await transport.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("A request waiting for a share gives up at its deadline or when cancelled, and is never sent")
    func waitingRequestGivesUp() async throws {
        let (group, _, server) = try Self.fourLoopsAndServer()
        defer { server.shutdown() }
        let gate = Gate()
        defer { gate.open() }
        server.route { _ in
            gate.wait()
            return MockResponse.text("ok")
        }
        let transport = Self.transport(limit: 2, on: group)
        let busy = (0..<2).map { index in
            Task { try await Self.send(transport, server.url("/busy/\(index)"), timeout: 60) }
        }
        #expect(await Self.eventually { server.requestCount == 2 })

        var timedOut: SimpleNetworkingError?
        do {
            try await Self.send(transport, server.url("/late"), timeout: 0.3)
        } catch {
            timedOut = error
        }
        if case .transportFailed(let failure, _)? = timedOut {
            #expect(failure.category == .timedOut)
        } else {
            Issue.record("waiting past the deadline gave \(String(describing: timedOut))")
        }

        let cancelled = Task { try await Self.send(transport, server.url("/cancelled")) }
        try await Task.sleep(nanoseconds: 100_000_000)
        cancelled.cancel()
        do {
            try await cancelled.value
            Issue.record("a request cancelled while it waited succeeded")
        } catch {
            if case .cancelled? = error as? SimpleNetworkingError {} else { Issue.record("cancelling gave \(error)") }
        }
        #expect(server.requestCount == 2, "a request that gave up was sent")

        gate.open()
        for task in busy { try await task.value }
        try await transport.shutdown()
        try await group.shutdownGracefully()
    }

    @Test("Transports to one origin spread over the loops: each draws its own home loop")
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

    @Test("Over a client of the user's, every request to one origin runs on one loop, concurrent ones too")
    func borrowedClientKeepsOneLoop() async throws {
        let (group, loops, server) = try Self.fourLoopsAndServer(delay: 0.3)
        defer { server.shutdown() }
        let client = HTTPClient(
            eventLoopGroup: group, configuration: AsyncHTTPClientTransport.clientConfiguration())
        let transport = AsyncHTTPClientTransport(client: client)

        let loopOfPath = try await Self.concurrentLoops(of: transport, server, count: 12, among: loops)
        #expect(Set(loopOfPath.values).count == 1, "requests ran on loops \(Set(loopOfPath.values).sorted())")
        #expect(!loopOfPath.values.contains(-1), "a response ran on none of the group's loops")

        try await transport.shutdown()
        try await client.shutdown()
        try await group.shutdownGracefully()
    }

    /// A group of four loops, its loops, and a server that answers every request with a short text, after `delay`
    /// seconds.
    private static func fourLoopsAndServer(delay: TimeInterval = 0) throws -> (
        MultiThreadedEventLoopGroup, [any EventLoop], MockServer
    ) {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 4)
        let server = try MockServer()
        server.route { _ in
            var response = MockResponse.text("ok")
            if delay > 0 { response.faults = [.delayHeaders(delay)] }
            return response
        }
        return (group, Array(group.makeIterator()), server)
    }

    /// A transport on `group` with at most `limit` connections per host.
    private static func transport(limit: Int, on group: any EventLoopGroup) -> AsyncHTTPClientTransport {
        var configuration = AsyncHTTPClientTransport.Configuration()
        configuration.maximumConnectionsPerHost = limit
        return AsyncHTTPClientTransport(configuration: configuration, eventLoopGroup: group)
    }

    /// Sends a GET of `url` and drops the response.
    private static func send(_ transport: AsyncHTTPClientTransport, _ url: URL, timeout: TimeInterval = 10)
        async throws(SimpleNetworkingError)
    {
        _ = try await transport.send(
            HTTPRequest(method: .get, url: url), options: TransportOptions(timeout: timeout),
            transfer: HTTPTransfer(head: { _ in }, body: { _ in }))
    }

    /// Holds the server's answers to some requests until the test opens it (or a minute passes, so that a failing test
    /// still ends): a request held this way is surely still in flight whatever the machine's load, where a fixed delay
    /// could run out on a busy machine before the test looked.
    private final class Gate: Sendable {
        private let isOpen = NIOLockedValueBox(false)

        /// Lets every held answer go, and every later one.
        func open() { isOpen.withLockedValue { $0 = true } }

        /// Blocks the server's connection thread until the gate opens, or for at most a minute.
        func wait() {
            for _ in 0..<12_000 where !isOpen.withLockedValue({ $0 }) { Thread.sleep(forTimeInterval: 0.005) }
        }
    }

    /// Whether `condition` holds within 30 s, checked every 5 ms.
    private static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        for _ in 0..<6000 {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        return condition()
    }

    /// The loop index of each of `count` requests sent at once, by its path.
    private static func concurrentLoops(
        of transport: AsyncHTTPClientTransport, _ server: MockServer, count: Int, among loops: [any EventLoop]
    ) async throws -> [String: Int] {
        try await withThrowingTaskGroup(of: (String, Int).self) { tasks in
            for index in 0..<count {
                let path = "/many/\(index)"
                tasks.addTask { (path, try await Self.loop(of: transport, server.url(path), among: loops)) }
            }
            var found: [String: Int] = [:]
            for try await (path, index) in tasks { found[path] = index }
            return found
        }
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
