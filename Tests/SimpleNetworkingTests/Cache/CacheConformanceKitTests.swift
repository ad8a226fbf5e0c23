import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

/// The cache conformance kit (``CacheConformance``) over loopback: every case over the URLSession transport, and the
/// kit catching caches that break the rules.
@Suite("Cache conformance kit")
struct CacheConformanceKitTests {
    @Test("Every case holds over the URLSession transport", arguments: CacheConformance.caseIDs)
    func urlSession(caseID: String) async {
        let kit = CacheConformance { _ in URLSessionTransport(configuration: SimpleNetworking.Configuration()) }
        let failure = await kit.run(caseID)
        #expect(failure == nil, "\(caseID): \(failure ?? "")")
    }

    @Test("Every case holds over MockTransport serving the case's server", arguments: CacheConformance.caseIDs)
    func mockTransport(caseID: String) async {
        let failure = await CacheConformance { MockTransport(serving: $0) }.run(caseID)
        #expect(failure == nil, "\(caseID): \(failure ?? "")")
    }

    @Test("Every scenario holds over the URLSession transport", arguments: CacheConformance.scenarioIDs)
    func urlSessionScenario(id: String) async {
        let kit = CacheConformance { _ in URLSessionTransport(configuration: SimpleNetworking.Configuration()) }
        let failure = await kit.runScenario(id)
        #expect(failure == nil, "\(id): \(failure ?? "")")
    }

    @Test(
        "Every scenario holds over MockTransport serving the scenario's server", arguments: CacheConformance.scenarioIDs
    )
    func mockTransportScenario(id: String) async {
        let failure = await CacheConformance { MockTransport(serving: $0) }.runScenario(id)
        #expect(failure == nil, "\(id): \(failure ?? "")")
    }

    @Test("A client whose cache is off fails every scenario; an unknown scenario is refused")
    func scenariosCatchMissingCache() async {
        let kit = CacheConformance(configure: { $0.cache = nil }) { MockTransport(serving: $0) }
        let failures = await kit.runScenarios()
        #expect(failures.map(\.caseID) == CacheConformance.scenarioIDs, "\(failures)")
        #expect(await kit.runScenario("no-such-scenario") == "no such scenario")
    }

    /// The cases in which a stored response answers without a request: a client without a cache fails each.
    static let answeredFromStorage: [String] = CacheConformance.cases.filter { entry in
        entry.steps.contains { step in
            if case .response(.cache, _, _) = step.answer { return true }
            return false
        }
    }.map(\.id)

    @Test("A client whose cache is off fails every case that a stored response answers")
    func catchesMissingCache() async {
        let kit = CacheConformance(configure: { $0.cache = nil }) { MockTransport(serving: $0) }
        let failures = await kit.run()
        #expect(Self.answeredFromStorage.count > 40)
        #expect(Set(failures.map(\.caseID)).isSuperset(of: Self.answeredFromStorage))
        #expect(failures.contains { $0.caseID == "freshness-max-age" && $0.message.hasPrefix("step 2: ") })
    }

    @Test("The kit catches a cache that keeps everything fresh, and one that drops validators")
    func catchesBrokenCaches() async {
        /// Answers every request from a store that never goes stale: no validation, no invalidation.
        struct Forever: RequestInterceptor {
            let stored = Locked<[String: SimpleResponse]>([:])

            func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
                async throws(SimpleNetworkingError) -> SimpleResponse
            {
                let key = "\(request.method) \(request.url)"
                if let hit = stored.withLock({ $0[key] }) { return hit }
                let response = try await next(request)
                stored.withLock { $0[key] = response }
                return response
            }
        }
        let forever = CacheConformance(configure: { configuration in
            configuration.cache = nil
            configuration.interceptors = [Forever()]
        }) { MockTransport(serving: $0) }
        for caseID in ["freshness-max-age-stale", "ccreq-no-cache-etag", "invalidate-POST", "vary-no-match"] {
            #expect(await forever.run(caseID) != nil, "\(caseID)")
        }
    }

    @Test("A case of the caller's own runs too; an unknown id is refused")
    func ownCase() async {
        let kit = CacheConformance { MockTransport(serving: $0) }
        let own = CacheConformance.Case(
            "own-fresh-for-a-minute",
            steps: [
                .init(
                    response: .init(fields: [("Cache-Control", "max-age=60"), ("Date", .date(0))]), sending: .sent,
                    answer: .response(.network, status: 200, bodyOfStep: 1)),
                .init(wait: 59, sending: .notSent, answer: .response(.cache, status: 200, bodyOfStep: 1), age: 59),
                .init(
                    wait: 2, sending: .sent(conditions: [("If-Modified-Since", .date(0))]),
                    answer: .response(.network, status: 200, bodyOfStep: 3)),
            ])
        #expect(await kit.run(own) == nil)
        #expect(await kit.run("no-such-case") == "no such case")
        #expect(CacheConformance.cases.count >= 80)
        #expect(Set(CacheConformance.caseIDs).count == CacheConformance.cases.count)
    }
}
