import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// A transport that answers after `delay` seconds, records the task each send ran in, and heeds only what
/// `capabilities` says: with ``TransportCapabilities/transferCancellation`` it waits inside the transfer's
/// cancellation handler, without it only its task's cancellation stops it.
private final class TaskRecordingTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked Sendable: the recorded tasks are behind `tasks`' lock.
    private let tasks = Locked<[Int]>([])
    let capabilities: TransportCapabilities
    let delay: TimeInterval

    init(capabilities: TransportCapabilities, delay: TimeInterval = 0) {
        self.capabilities = capabilities
        self.delay = delay
    }

    var sendingTasks: [Int] { tasks.current }

    func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
        async throws(SimpleNetworkingError) -> SimpleResponse
    {
        let current = withUnsafeCurrentTask { $0?.hashValue } ?? 0
        tasks.withLock { $0.append(current) }
        if delay > 0 {
            let sleep = Task { try await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
            let slept: Bool
            if capabilities.contains(.transferCancellation) {
                slept = await transfer.withCancellationHandler {
                    (try? await sleep.value) != nil
                } onCancel: {
                    sleep.cancel()
                }
            } else {
                slept = await withTaskCancellationHandler {
                    (try? await sleep.value) != nil
                } onCancel: {
                    sleep.cancel()
                }
            }
            guard slept else { throw .cancelled }
        }
        return try await transfer.deliver(whole: SimpleResponse(statusCode: 200, body: Data("ok".utf8)))
    }
}

@Suite("response() in the caller's task")
struct CallerTaskTests {
    @Test("response() sends in the task that awaits it when the transport heeds a cancelled transfer")
    func runsInCallerTask() async throws {
        let transport = TaskRecordingTransport(capabilities: .transferCancellation)
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport)
        let caller = withUnsafeCurrentTask { $0?.hashValue } ?? -1
        #expect(try await api.get("/one").response().string == "ok")
        #expect(transport.sendingTasks == [caller])
    }

    @Test("Over a transport that heeds only its task, the attempt gets a task of its own, and cancel() stops it")
    func taskForOtherTransports() async {
        let transport = TaskRecordingTransport(capabilities: [], delay: 30)
        let api = SimpleNetworking(baseURL: exampleBaseURL, transport: transport)
        let caller = withUnsafeCurrentTask { $0?.hashValue } ?? -1
        let request = api.get("/held")
        async let error = failure(of: request)
        #expect(await eventually { transport.sendingTasks.count == 1 })
        let stopwatch = WireStopwatch()
        request.cancel()
        let result = await error
        #expect(stopwatch.stop().net < 5 * timeScale, "cancel() waited for the 30 s send")
        #expect(result.map { if case .cancelled = $0 { true } else { false } } == true, "\(String(describing: result))")
        #expect(transport.sendingTasks.count == 1)
        #expect(transport.sendingTasks.first != caller)
    }

    @Test("cancel() of a request awaited over loopback stops it promptly, and the caller's task is not cancelled")
    func cancelOverLoopback() async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in MockResponse(status: 200, faults: [.delayHeaders(30)]) }
        let api = SimpleNetworking(baseURL: server.baseURL)
        defer { api.close() }
        let request = api.get("/held").retryPolicy(.never)
        async let error = failure(of: request)
        #expect(await eventually { server.requestCount == 1 })
        let stopwatch = WireStopwatch()
        request.cancel()
        let result = await error
        #expect(stopwatch.stop().net < 5 * timeScale, "cancel() waited for the held response")
        #expect(result.map { if case .cancelled = $0 { true } else { false } } == true, "\(String(describing: result))")
        #expect(!Task.isCancelled)
        // The caller goes on: its next request is not cancelled.
        server.route { _ in .text("after") }
        #expect(try await api.get("/next").response().string == "after")
    }
}
