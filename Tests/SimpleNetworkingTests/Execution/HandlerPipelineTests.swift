import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Handler pipeline")
struct HandlerPipelineTests {
    @Test("Status handlers run in the order added, then success, then completion")
    func order() async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(200))
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(completion: { log.append("completion") })
            .on(success: { _ in log.append("success") })
            .on(
                httpStatus: 200...299,
                { _, _ in
                    log.append("range"); return true
                }
            )
            .on(
                httpStatus: 200,
                { _, _ in
                    log.append("exact"); return true
                }
            )
            .on(
                httpStatus: 404,
                { _, _ in
                    log.append("wrong status"); return true
                }
            )
            .on(error: { _ in log.append("error") })
            .executeAndWait(on: api)
        #expect(log.all == ["range", "exact", "success", "completion"])
    }

    @Test("A status handler returning false stops the chain; completion still runs once")
    func stoppedChain() async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(500))
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(
                httpStatus: 500,
                { _, _ in
                    log.append("first"); return false
                }
            )
            .on(
                httpStatus: 500,
                { _, _ in
                    log.append("second"); return true
                }
            )
            .on(success: { _ in log.append("success") })
            .on(error: { _ in log.append("error") })
            .on(completion: { log.append("completion") })
            .executeAndWait(on: api)
        #expect(log.all == ["first", "completion"])
    }

    @Test("A stopped chain makes the awaiting call throw stoppedByHandler instead of hanging")
    func stoppedChainAsync() async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(409))
        let request = api.get("/a").on(httpStatus: 409, { _, _ in false })
        await #expect {
            try await request.response()
        } throws: { error in
            guard case .stoppedByHandler(let response) = error as? SimpleNetworkingError else { return false }
            return response.statusCode == 409
        }
    }

    @Test(
        "Statuses are routed: 2xx to success, anything else to error with the response",
        arguments: [
            (200, "success"), (201, "success"), (204, "success"), (299, "success"),
            (304, "error 304"), (400, "error 400"), (401, "error 401"), (404, "error 404"), (500, "error 500"),
            (503, "error 503"),
        ])
    func routing(status: Int, expected: String) async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(status))
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(success: { _ in log.append("success") })
            .on(error: { error, response in
                guard case .unacceptableStatus = error, response?.statusCode == error.statusCode else { return }
                log.append("error \(response?.statusCode ?? 0)")
            })
            .executeAndWait(on: api)
        #expect(log.all == [expected])
    }

    @Test("Range handlers match their range only", arguments: [(503, true), (599, true), (499, false), (404, false)])
    func ranges(status: Int, matchesServerErrors: Bool) async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(status))
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(
                httpStatus: 500...599,
                { _, _ in
                    log.append("5xx"); return true
                }
            )
            .on(
                httpStatus: 400..<500,
                { _, _ in
                    log.append("4xx"); return true
                }
            )
            .executeAndWait(on: api)
        #expect(log.all == [matchesServerErrors ? "5xx" : "4xx"])
    }

    @Test("Nothing is sent and no handler runs before execute")
    func nothingBeforeExecute() async throws {
        let (api, transport) = makeMockClient()
        let log = EventLog()
        let request = api.get("/a").on(completion: { log.append("completion") })
        #expect(await settle())
        #expect(transport.requestCount == 0)
        #expect(log.all.isEmpty)
        // Once executed it is sent and completes, so the checks above would have seen an early start.
        await request.executeAndWait(on: api)
        #expect(transport.requestCount == 1)
        #expect(log.all == ["completion"])
    }

    @Test("A transport failure reaches the error handlers with no response")
    func transportFailure() async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.failure(.cannotConnectToHost))
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(error: { error, response in
                log.append("\(error.urlError?.code == .cannotConnectToHost) \(response == nil)")
            })
            .executeAndWait(on: api)
        #expect(log.all == ["true true"])
    }

    @Test("Handlers can run on a caller-chosen Dispatch queue")
    func handlerQueue() async {
        let queue = DispatchQueue(label: "handlers")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let (api, transport) = makeMockClient { $0.handlerQueue = .dispatch(queue) }
        transport.enqueue(.status(200))
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(success: { _ in log.append("on queue: \(DispatchQueue.getSpecific(key: key) == 7)") })
            .executeAndWait(on: api)
        #expect(log.all == ["on queue: true"])
    }

    @Test("Handlers never run inside execute(on:), on its caller's thread, even when the transport answers at once")
    func notInsideExecute() async {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(200))
        transport.enqueue(.status(500))
        let onCallerThread = Locked<[Bool]>([])
        // A thread of its own, marked, which neither the handler queue nor Swift's pool ever uses.
        let caller = Thread {
            Thread.current.threadDictionary["caller"] = true
            for path in ["/a", "/b"] {
                SimpleNetworking.get(path)
                    .on(success: { _ in
                        onCallerThread.withLock { $0.append(Thread.current.threadDictionary["caller"] != nil) }
                    })
                    .on(error: { _ in
                        onCallerThread.withLock { $0.append(Thread.current.threadDictionary["caller"] != nil) }
                    })
                    .execute(on: api)
            }
        }
        caller.start()
        #expect(await eventually { onCallerThread.current.count == 2 })
        #expect(onCallerThread.current == [false, false])
    }
}

@Suite("Completion runs exactly once")
struct CompletionTests {
    @Test("Once on success, error and a stopped chain", arguments: [200, 500, 401])
    func simplePaths(status: Int) async throws {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(status))
        let completions = Counter()
        await SimpleNetworking.get("/a")
            .on(httpStatus: 401, { _, _ in false })
            .on(completion: { completions.increment() })
            .executeAndWait(on: api)
        #expect(await settle())
        #expect(completions.value == 1)
    }

    @Test("Once across a retry asked for inside a status handler, after the retried attempt")
    func retryPath() async throws {
        let (api, transport) = makeMockClient()
        transport.enqueue(.status(503))
        transport.enqueue(.status(200))
        let log = EventLog()
        await SimpleNetworking.get("/a")
            .on(
                httpStatus: 503,
                { request, _ in
                    request.retry(); return false
                }
            )
            .on(success: { _ in log.append("success") })
            .on(completion: { log.append("completion") })
            .executeAndWait(on: api)
        #expect(await settle())
        #expect(log.all == ["success", "completion"])
        #expect(transport.requestCount == 2)
    }

    @Test("Once on cancel, with a cancelled error")
    func cancelPath() async throws {
        let (api, transport) = makeMockClient()
        // Held for a minute, so that it is still in flight however loaded the machine: the test cancels it.
        transport.enqueue(MockTransport.Reply.status(200).delayed(by: 60))
        let log = EventLog()
        let request = SimpleNetworking.get("/a")
            .on(error: { error in log.append(error.isCancelled ? "cancelled" : "other") })
            .on(success: { _ in log.append("success") })
            .on(completion: { log.append("completion") })
            .execute(on: api)
        #expect(await eventually { transport.requestCount == 1 })
        request.cancel()
        #expect(await eventually { log.all.count == 2 })
        #expect(await settle())
        #expect(log.all == ["cancelled", "completion"])
        #expect(transport.requestCount == 1)
    }

}

extension SimpleNetworkingError {
    var isCancelled: Bool {
        if case .cancelled = self { return true }
        return false
    }
}
