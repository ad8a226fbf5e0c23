import Foundation
import SimpleNetworking

extension CacheConformance {
    /// One run of a ``Case``: its server answers each step's request with that step's ``ServerResponse``, and its
    /// client sends the steps in order and is checked after each.
    struct CaseRun: Sendable {
        let entry: Case
        let server: MockServer
        let clock = TestClock(start: CaseRun.startDate)
        /// The `cacheAnswered(source: revalidated, ...)` events so far: the sign that a `304` has been merged.
        let revalidations = Locked(0)
        /// The `cacheStored(statusCode:)` events so far: the sign that a response has been stored.
        let stores = Locked(0)

        /// When every case starts, on its clock: 14 November 2023, 22:13:20 UTC.
        static let startDate = Date(timeIntervalSince1970: 1_700_000_000)

        /// When the case started, on its clock.
        var start: Date { Self.startDate }

        /// Runs the steps; stops at the first that does not hold.
        func run(
            makeTransport: @Sendable (MockServer) -> any HTTPTransport,
            configure: (inout SimpleNetworking.Configuration) -> Void
        ) async -> String? {
            let start = start
            let steps = entry.steps
            server.route { request in
                guard let number = request.header(CacheConformance.stepFieldName).flatMap(Int.init),
                    steps.indices.contains(number - 1)
                else { return .status(400) }
                return Self.mockResponse(steps[number - 1].response, step: number, start: start)
            }
            var configuration = SimpleNetworking.Configuration()
            configuration.cache = .memory(maximumBytes: 1 << 20)
            configuration.retryPolicy = .never
            configuration.timeout = 30  // long: the start of a parallel run can hold every task for seconds
            configuration.clock = clock.simpleClock
            configuration.eventHandler = { [revalidations, stores] event in
                switch event.kind {
                case .cacheAnswered(.revalidated, _): revalidations.withLock { $0 += 1 }
                case .cacheStored: stores.withLock { $0 += 1 }
                default: break
                }
            }
            configure(&configuration)
            let client = SimpleNetworking(
                baseURL: server.baseURL, transport: makeTransport(server), configuration: configuration)
            defer { client.close() }

            var merged = 0
            for (index, step) in steps.enumerated() {
                clock.advance(by: step.wait)
                let storedBefore = stores.current
                let outcome = await send(step, number: index + 1, on: client)
                if let problem = check(step, number: index + 1, outcome: outcome, start: start) {
                    return "step \(index + 1): \(problem)"
                }
                if case .response(.revalidated, _, _) = step.answer { merged += 1 }
                if case .sentInBackground = step.sending, case .success(let response) = outcome,
                    response.source == .cache
                {
                    let awaited = await awaitBackground(
                        step, number: index + 1, merged: &merged, storedBefore: storedBefore)
                    if let problem = awaited {
                        return "step \(index + 1): \(problem)"
                    }
                }
            }
            return nil
        }

        // MARK: Sending

        /// What a step's request got: a response (from a success or an error that carries one), or the error.
        typealias Outcome = Result<SimpleResponse, SimpleNetworkingError>

        private func send(_ step: Step, number: Int, on client: SimpleNetworking) async -> Outcome {
            var request = client.request(HTTPMethod(rawValue: step.method), step.path)
            var names: [String] = []
            for field in step.fields where !names.contains(where: { $0.lowercased() == field.name.lowercased() }) {
                names.append(field.name)
            }
            for name in names {
                let values = step.fields.filter { $0.name.lowercased() == name.lowercased() }
                request = request.header(name, values.map { $0.value.rendered(from: start) }.joined(separator: ", "))
            }
            request = request.header(CacheConformance.stepFieldName, String(number))
            do {
                return .success(try await request.response())
            } catch {
                return error.response.map { .success($0) } ?? .failure(error)
            }
        }

        /// Waits for the background request of a step answered from storage to reach the server, then for the
        /// client to take in the server's answer: to merge a `304`, or to store any other response, which must be
        /// storable (`storedBefore` is the count of stored responses before the step was sent).
        private func awaitBackground(_ step: Step, number: Int, merged: inout Int, storedBefore: Int) async -> String? {
            guard await eventually({ !requests(of: number).isEmpty }) else {
                return "the background request did not reach the server within 60 s"
            }
            guard step.response.status == 304 else {
                guard await eventually({ stores.current > storedBefore }) else {
                    return "the background \(step.response.status) was not stored within 60 s"
                }
                return nil
            }
            merged += 1
            let expected = merged
            guard await eventually({ revalidations.current >= expected }) else {
                return "the background 304 was not merged within 60 s"
            }
            return nil
        }

        /// Whether `condition` holds within 60 seconds of real time, polled every 5 ms: twice the kit's client timeout,
        /// since the start of a parallel run (or ThreadSanitizer) can hold every task for seconds; a transport that
        /// never sends or never merges still fails, after a minute.
        private func eventually(_ condition: () -> Bool) async -> Bool {
            for _ in 0..<12_000 {
                if condition() { return true }
                try? await Task.sleep(nanoseconds: 5_000_000)
            }
            return condition()
        }

        /// The requests of step `number` that reached the server.
        private func requests(of number: Int) -> [RecordedRequest] {
            server.requests.filter { $0.header(CacheConformance.stepFieldName) == String(number) }
        }

        // MARK: Checking

        /// What does not hold after a step, or `nil`.
        private func check(_ step: Step, number: Int, outcome: Outcome, start: Date) -> String? {
            let received = requests(of: number)
            switch step.sending {
            case .notSent:
                if !received.isEmpty { return "expected no request to reach the server, \(received.count) did" }
            case .sent(let conditions):
                // A connection closed without an answer may be retried once by the transport (RFC 9112 section
                // 9.3.1 allows it for an idempotent request), as URLSession does.
                let allowed = step.response.closesConnection ? 1...2 : 1...1
                guard allowed.contains(received.count) else {
                    return "expected \(allowed.upperBound == 1 ? "one request" : "one or two requests") to reach the "
                        + "server, \(received.count) did"
                }
                for request in received {
                    if let problem = Self.conditionsProblem(request, conditions, start: start) { return problem }
                }
            case .sentInBackground(let conditions):
                // Sent after the answer: a request here already may be the background one, or may be one sent
                // before answering, which the answer's source tells.
                if let request = received.first,
                    let problem = Self.conditionsProblem(request, conditions, start: start)
                {
                    return problem
                }
            }
            switch (step.answer, outcome) {
            case (.failure, .failure):
                return nil
            case (.failure, .success(let response)):
                return "expected a failure, got \(response.statusCode) from \(response.source)"
            case (.response(let source, let status, _), .failure(let error)):
                return "expected \(status) from \(source), got \(error)"
            case (.response(let source, let status, let bodyStep), .success(let response)):
                let body = String(decoding: response.body, as: UTF8.self)
                let expectedBody = bodyStep.map { expectedBodyText(ofStep: $0) } ?? ""
                if response.source != source || response.statusCode != status || body != expectedBody {
                    return "expected \(status) from \(source) with body \"\(expectedBody)\", got "
                        + "\(response.statusCode) from \(response.source) with body \"\(body)\""
                }
                if let age = step.age, response.headers["Age"] != String(age) {
                    return "expected Age \(age), got \(response.headers["Age"] ?? "none")"
                }
                for field in step.responseFields where response.headers[field.name] != field.value.rendered(from: start)
                {
                    return "expected \(field.name): \(field.value.rendered(from: start)), got "
                        + "\(response.headers[field.name] ?? "none")"
                }
                return nil
            }
        }

        /// The conditional fields of `request` that differ from `expected`, or `nil`.
        private static func conditionsProblem(_ request: RecordedRequest, _ expected: Fields, start: Date) -> String? {
            for name in ["If-None-Match", "If-Modified-Since"] {
                let wanted = expected.first { $0.name.lowercased() == name.lowercased() }?.value.rendered(from: start)
                let sent = request.header(name)
                if sent != wanted {
                    return "expected the request with \(name): \(wanted ?? "(none)"), it had \(sent ?? "(none)")"
                }
            }
            return nil
        }

        /// The body of the server's answer to step `number` (1-based), as the client would receive it.
        private func expectedBodyText(ofStep number: Int) -> String {
            guard entry.steps.indices.contains(number - 1) else { return "(no step \(number))" }
            let step = entry.steps[number - 1]
            return step.method == "HEAD" || Self.forbidsBody(step.response.status) ? "" : "response \(number)"
        }

        // MARK: The server's side

        /// Whether a status has no body (RFC 9110 sections 15.2, 15.3.5 and 15.4.5).
        static func forbidsBody(_ status: Int) -> Bool {
            (100..<200).contains(status) || status == 204 || status == 304
        }

        /// The mock server's answer for step `number` of a case that started at `start`.
        static func mockResponse(_ response: ServerResponse, step number: Int, start: Date) -> MockResponse {
            if response.closesConnection { return MockResponse(faults: [.closeWithoutResponse]) }
            return MockResponse(
                status: response.status,
                headers: response.fields.map { ($0.name, $0.value.rendered(from: start)) },
                body: forbidsBody(response.status) ? Data() : Data("response \(number)".utf8))
        }
    }
}
