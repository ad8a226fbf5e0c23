import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

@Suite("Transport conformance")
struct TransportConformanceTests {
    /// Every check but, on Linux, `trailerFields`: FoundationNetworking ends the process on a response with trailer
    /// fields, which the library cannot prevent (<doc:LinuxPlatformNotes>; `TrailerFieldsTests` shows it in a
    /// process of its own).
    static let urlSessionChecks: [String] = {
        #if canImport(FoundationNetworking)
            TransportConformance.checks.filter { $0 != "trailerFields" }
        #else
            TransportConformance.checks
        #endif
    }()

    @Test("The URLSession transport passes the conformance kit", arguments: urlSessionChecks)
    func urlSession(check: String) async {
        let kit = TransportConformance { _ in URLSessionTransport(configuration: SimpleNetworking.Configuration()) }
        let failure = await kit.run(check)
        #expect(failure == nil, "\(check): \(failure ?? "")")
    }

    @Test("MockTransport serving a MockServer passes the conformance kit", arguments: TransportConformance.checks)
    func mockTransport(check: String) async {
        let failure = await TransportConformance { MockTransport(serving: $0) }.run(check)
        #expect(failure == nil, "\(check): \(failure ?? "")")
    }

    @Test("The kit catches a transport that breaks the contract")
    func catchesBrokenTransport() async {
        // Follows nothing, limits nothing, never times out: answers every request with a 302 and a large body.
        struct Careless: HTTPTransport {
            var capabilities: TransportCapabilities { [.streaming, .transferCancellation] }

            func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                let response = SimpleResponse(
                    statusCode: 200, headers: [:], body: Data(count: 1 << 20), url: request.url)
                _ = try? await transfer.deliver(whole: response)
                return SimpleResponse(statusCode: 200, url: request.url)
            }
        }
        let failures = await TransportConformance { _ in Careless() }.run()
        #expect(Set(failures.map(\.check)) == Set(TransportConformance.checks))
    }

    @Test(
        "The kit catches a transport that collects the body before handing it over while claiming to stream",
        arguments: ["firstBytesBeforeEnd", "endlessBodyAbandoned", "bytesBeforeDropDelivered"])
    func catchesBufferingTransport(check: String) async {
        struct Buffering: HTTPTransport {
            let inner: URLSessionTransport
            var capabilities: TransportCapabilities { .streaming }

            func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                try await transfer.deliver(whole: try await inner.send(request, options: options))
            }

            func close() { inner.close() }
        }
        let kit = TransportConformance { _ in
            Buffering(inner: URLSessionTransport(configuration: SimpleNetworking.Configuration()))
        }
        let failure = await kit.run(check)
        #expect(failure != nil)
    }

    @Test("The kit catches a transport whose timeout covers only the response head")
    func catchesHeadOnlyTimeout() async {
        /// Times an attempt out only until the head arrives; the body then takes as long as the server takes (20 s in
        /// the kit's check), the defect of a deadline that bounds the head alone. Over `MockTransport`, which waits
        /// without using the CPU (URLSession on Linux would keep a core busy for those 20 s).
        struct HeadOnlyTimeout: HTTPTransport {
            let inner: MockTransport
            var capabilities: TransportCapabilities { .streaming }

            func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                let headArrived = Locked(false)
                let relay = HTTPTransfer(
                    head: { head throws(SimpleNetworkingError) in
                        headArrived.set(true)
                        try transfer.receive(head: head)
                    },
                    body: { bytes throws(SimpleNetworkingError) in try transfer.receive(bytes) })
                var unbounded = options
                unbounded.timeout = 60
                let outcome = await withTaskGroup(of: Result<SimpleResponse, SimpleNetworkingError>?.self) { group in
                    group.addTask { [inner, unbounded] in
                        do throws(SimpleNetworkingError) {
                            return .success(try await inner.send(request, options: unbounded, transfer: relay))
                        } catch {
                            return .failure(error)
                        }
                    }
                    group.addTask {
                        try? await Task.sleep(nanoseconds: UInt64(options.timeout * 1e9))
                        guard !headArrived.current else { return nil }
                        return .failure(.transportFailed(TransportFailure(.timedOut)))
                    }
                    var first: Result<SimpleResponse, SimpleNetworkingError>?
                    for await result in group where first == nil {
                        guard let result else { continue }
                        first = result
                        group.cancelAll()
                    }
                    return first ?? .failure(.cancelled)
                }
                return try outcome.get()
            }

            func close() { inner.close() }
        }
        let failure = await TransportConformance { HeadOnlyTimeout(inner: MockTransport(serving: $0)) }.run("timeout")
        #expect(failure?.contains("delayed body") == true, "\(failure ?? "passed")")
    }

    @Test("The kit catches a transport whose cancellation waits for the server, however it measures the machine")
    func catchesLateCancellation() async {
        /// Reports a cancellation only once the server has answered (the kit's server holds it 20 s): the defect of a
        /// transport that never stops the request on the wire. Its wait is idle, so the kit's lateness meter, which
        /// takes a busy machine's delays out of the bound, has nothing to take out.
        struct LateCancellation: HTTPTransport {
            let inner: MockTransport
            var capabilities: TransportCapabilities { .streaming }

            func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                var unbounded = options
                unbounded.timeout = 60
                let detached = Task.detached { [inner, unbounded] () -> Result<SimpleResponse, SimpleNetworkingError> in
                    do throws(SimpleNetworkingError) {
                        return .success(try await inner.send(request, options: unbounded))
                    } catch {
                        return .failure(error)
                    }
                }
                let outcome = await detached.value
                if Task.isCancelled { throw .cancelled }
                return try outcome.get()
            }

            func close() { inner.close() }
        }
        let failure = await TransportConformance { LateCancellation(inner: MockTransport(serving: $0)) }
            .run("cancellation")
        #expect(failure?.hasPrefix("cancellation took") == true, "\(failure ?? "passed")")
    }

    @Test("A client refuses streamed features on a transport that cannot stream them, before sending anything")
    func refusesOnNonStreamingTransport() async throws {
        /// Answers from memory and says it cannot stream.
        struct Whole: HTTPTransport {
            let sends = Locked(0)
            var capabilities: TransportCapabilities { [] }

            func send(_ request: HTTPRequest, options: TransportOptions, transfer: HTTPTransfer)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                sends.withLock { $0 += 1 }
                return try await transfer.deliver(
                    whole: SimpleResponse(statusCode: 200, body: Data("whole".utf8), url: request.url))
            }
        }
        let transport = Whole()
        let api = SimpleNetworking(baseURL: URL(string: "https://api.example.com")!, transport: transport)
        let directory = try ScratchDirectory()
        let file = directory.file("up.bin")
        try Data("x".utf8).write(to: file)

        #expect(try await api.get("/plain").response().string == "whole")
        var errors: [SimpleNetworkingError?] = []
        do {
            _ = try await api.get("/file").download(to: directory.file("down.bin"))
            errors.append(nil)
        } catch {
            errors.append(error)
        }
        errors.append(await failure(of: api.put("/up").body(fileAt: file)))
        errors.append(await failure(of: api.get("/progress").progress { _ in }))
        do {
            for try await _ in api.get("/stream").chunks() {}
            errors.append(nil)
        } catch {
            errors.append(error)
        }
        for error in errors {
            guard case .unsupportedByTransport(let reason) = error else {
                Issue.record("expected unsupportedByTransport, got \(String(describing: error))")
                continue
            }
            #expect(reason.contains("Whole cannot stream"))
        }
        #expect(transport.sends.current == 1)
    }
}
