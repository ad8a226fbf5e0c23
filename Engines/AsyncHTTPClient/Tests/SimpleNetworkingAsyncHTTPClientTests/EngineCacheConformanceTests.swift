import Foundation
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting
import Testing

/// The cache conformance kit over the engine: every case of the library's table and every scenario, as over URLSession
/// (the library's `CacheConformanceKitTests`).
@Suite("AsyncHTTPClient engine: cache conformance")
struct EngineCacheConformanceTests {
    @Test("Every case holds over AsyncHTTPClientTransport", arguments: CacheConformance.caseIDs)
    func engine(caseID: String) async {
        let failure = await CacheConformance { _ in AsyncHTTPClientTransport() }.run(caseID)
        #expect(failure == nil, "\(caseID): \(failure ?? "")")
    }

    @Test("Every scenario holds over AsyncHTTPClientTransport", arguments: CacheConformance.scenarioIDs)
    func engineScenario(id: String) async {
        let failure = await CacheConformance { _ in AsyncHTTPClientTransport() }.runScenario(id)
        #expect(failure == nil, "\(id): \(failure ?? "")")
    }
}
