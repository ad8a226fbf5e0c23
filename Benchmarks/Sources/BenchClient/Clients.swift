import AsyncHTTPClient
import Foundation
import NIOCore
import SimpleNetworking
import SimpleNetworkingAsyncHTTPClient
import SimpleNetworkingTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One way of fetching the benchmark's JSON: each client under test implements it.
protocol Client: Sendable {
    /// Fetches the JSON once and returns how many body bytes arrived (or a decoded field's size), so that nothing is
    /// optimised away.
    func fetch() async throws -> Int
    /// Releases the client's sessions and connections.
    func close() async
}

/// The benchmark's JSON as a model, for the `decode` client.
struct Payload: Decodable {
    let id: Int
    let name: String
    let tags: [String]
    let ok: Bool
}

/// The clients by the name the runner passes.
func makeClient(named name: String, url: URL) -> (any Client)? {
    switch name {
    case "urlsession-default": return RawURLSession(url: url, tuned: false)
    case "urlsession-tuned": return RawURLSession(url: url, tuned: true)
    case "urlsession-delegate": return DelegateURLSession(url: url)
    case "library-response": return LibraryClient(url: url, style: .response, transport: nil)
    case "library-decode": return LibraryClient(url: url, style: .decode, transport: nil)
    case "library-handler": return LibraryClient(url: url, style: .handler, transport: nil)
    case "library-memory": return LibraryClient(url: url, style: .response, transport: InMemory.transport())
    case "ahc-raw": return RawAsyncHTTPClient(url: url)
    case "library-ahc":
        return LibraryClient(url: url, style: .response, transport: AsyncHTTPClientTransport())
    default: return nil
    }
}

/// Settings shared by the tuned URLSession clients: no cache, no cookies, no credential storage, as the library's own
/// session has them.
func tunedConfiguration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.urlCredentialStorage = nil
    return configuration
}

/// URLSession's async `data(for:)`: the default ephemeral session, or the tuned one.
struct RawURLSession: Client {
    let url: URL
    let session: URLSession

    init(url: URL, tuned: Bool) {
        self.url = url
        session = URLSession(configuration: tuned ? tunedConfiguration() : .ephemeral)
    }

    func fetch() async throws -> Int {
        let (data, response) = try await session.data(for: URLRequest(url: url))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError.status }
        return data.count
    }

    func close() async { session.invalidateAndCancel() }
}

/// The library's client, over URLSession or another transport, by one of its three APIs.
struct LibraryClient: Client {
    enum Style { case response, decode, handler }

    let api: SimpleNetworking
    let style: Style

    init(url: URL, style: Style, transport: (any HTTPTransport)?) {
        let base = url.deletingLastPathComponent()
        api = transport.map { SimpleNetworking(baseURL: base, transport: $0) } ?? SimpleNetworking(baseURL: base)
        self.style = style
    }

    func fetch() async throws -> Int {
        switch style {
        case .response:
            return try await api.get("/json").response().body.count
        case .decode:
            return try await api.get("/json").decode(Payload.self).name.utf8.count
        case .handler:
            return try await withCheckedThrowingContinuation { continuation in
                api.get("/json") { request in
                    request
                        .on(success: { response in continuation.resume(returning: response.body.count) })
                        .on(error: { error in continuation.resume(throwing: error) })
                }
            }
        }
    }

    func close() async { api.close() }
}

/// AsyncHTTPClient as its README shows it: `execute` and `collect(upTo:)`, on the process-wide event loops.
struct RawAsyncHTTPClient: Client {
    let url: String
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)

    init(url: URL) {
        self.url = url.absoluteString
    }

    func fetch() async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        guard response.status == .ok else { throw BenchError.status }
        return try await response.body.collect(upTo: 1 << 20).readableBytes
    }

    func close() async { try? await client.shutdown() }
}

/// A transport that answers from memory: the library's own cost with no network at all.
enum InMemory {
    static func transport() -> MockTransport {
        let transport = MockTransport()
        let body = Data(payloadForMemory.utf8)
        transport.route { _ in .status(200, headers: ["Content-Type": "application/json"], body: body) }
        return transport
    }

    static let payloadForMemory =
        #"{"id":12345,"name":"SimpleNetworking benchmarks","tags":["swift","http","bench"],"ok":true}"#
}

enum BenchError: Error {
    case status
}
