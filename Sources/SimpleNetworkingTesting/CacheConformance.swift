import Foundation
import SimpleNetworking

/// Checks the client's private HTTP cache (``SimpleNetworking/Configuration/cache``) end to end over a transport,
/// against ``MockServer`` over real loopback sockets: the facts of the public cache conformance suite
/// (http-tests/cache-tests) that apply to a private cache, restated as a table of ``Case``s.
///
/// ```swift
/// @Test(arguments: CacheConformance.caseIDs)
/// func cache(caseID: String) async {
///     let failure = await CacheConformance { _ in MyTransport() }.run(caseID)
///     #expect(failure == nil, "\(caseID): \(failure ?? "")")
/// }
/// ```
///
/// Each case gets a fresh server, transport and client. The client has an in-memory cache, no retries, and its time
/// on a ``TestClock``, so a case that lets an hour pass takes no time; `configure` may change its configuration
/// afterwards (to check that the kit catches a cache that is off, say). Each step sends its request with the fields
/// it lists (and ``stepFieldName``, which tells the server whose answer to give), then checks that it reached the
/// server or not, with the expected conditional fields, and what the client got: the response's
/// ``SimpleResponse/source``, status and body (the server's answer to which step). A request that fails with a
/// status still counts by its response. A step whose request goes out in the background is awaited (in real time,
/// for at most ten seconds) until the server has it, then until the client has merged its `304`
/// (``NetworkEvent/Kind/cacheAnswered(source:statusCode:)``) or stored its other answer
/// (``NetworkEvent/Kind/cacheStored(statusCode:)``).
///
/// The cases: freshness by `max-age`, `Expires`, `Date` and `Age`; heuristic freshness from `Last-Modified`; request
/// directives and `Pragma`; response directives; `Vary`; validation and the `304` update; which statuses and methods
/// are stored; `stale-while-revalidate` and `stale-if-error`; requests with `Authorization`; invalidation by `POST`,
/// `PUT`, `PATCH` and `DELETE`, with `Location` and `Content-Location`. Where a case of the suite is a "check" (no
/// requirement) or optional and this cache answers otherwise, the table keeps this cache's answer, as the library's
/// HTTP caching article describes.
///
/// Its scenarios (``scenarioIDs``, ``runScenario(_:)``) check, over the same transport, the promises a table of one
/// client cannot: a disk cache across clients and when damaged, the byte limit and eviction, the sources reported,
/// and invalidation across origins.
public struct CacheConformance: Sendable {
    /// One case that did not hold.
    public struct Failure: Sendable, CustomStringConvertible {
        /// The case's ``Case/id``.
        public let caseID: String
        /// What was expected and what happened.
        public let message: String

        /// `caseID: message`.
        public var description: String { "\(caseID): \(message)" }
    }

    let makeTransport: @Sendable (MockServer) -> any HTTPTransport
    let configure: @Sendable (inout SimpleNetworking.Configuration) -> Void

    /// Creates the kit for clients over transports made by `makeTransport`.
    /// - Parameters:
    ///   - configure: Changes each client's configuration after the kit has set it up. Default: nothing.
    ///   - makeTransport: Returns a new transport for the case's server; called once per case. A network transport
    ///     ignores the server; one that answers without sockets, such as `MockTransport(serving:)`, serves it.
    public init(
        configure: @escaping @Sendable (inout SimpleNetworking.Configuration) -> Void = { _ in },
        _ makeTransport: @escaping @Sendable (MockServer) -> any HTTPTransport
    ) {
        self.configure = configure
        self.makeTransport = makeTransport
    }

    /// Every case, in the order ``run()`` runs them.
    public static let cases: [Case] =
        freshnessCases + ageAndExpiresCases + heuristicCases + requestDirectiveCases + varyCases
        + authorizationCases + validationCases + responseDirectiveCases + staleCases + statusCases
        + invalidationCases

    /// The ids of ``cases``, in order.
    public static var caseIDs: [String] { cases.map(\.id) }

    /// Runs every case, one after another.
    /// - Returns: The cases that did not hold; empty when the cache conforms over the transport.
    public func run() async -> [Failure] {
        var failures: [Failure] = []
        for entry in Self.cases {
            if let message = await run(entry) { failures.append(Failure(caseID: entry.id, message: message)) }
        }
        return failures
    }

    /// Runs one case by id.
    /// - Parameter caseID: One of ``caseIDs``.
    /// - Returns: What went wrong, or `nil` when the case holds.
    public func run(_ caseID: String) async -> String? {
        guard let entry = Self.cases.first(where: { $0.id == caseID }) else { return "no such case" }
        return await run(entry)
    }

    /// Runs a case, one of the table's or one of the caller's own.
    /// - Parameter entry: The case.
    /// - Returns: What went wrong, or `nil` when the case holds.
    public func run(_ entry: Case) async -> String? {
        let server: MockServer
        do {
            server = try MockServer()
        } catch {
            return "MockServer could not start: \(error)"
        }
        defer { server.shutdown() }
        return await CaseRun(entry: entry, server: server).run(makeTransport: makeTransport, configure: configure)
    }
}
