import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
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
    case "library-memory-handler": return LibraryClient(url: url, style: .handler, transport: InMemory.transport())
    case "ahc-raw": return RawAsyncHTTPClient(url: url)
    case "ahc-delegate": return DelegateAsyncHTTPClient(url: url)
    case "ahc-raw-loops": return PerLoopClients(url: url, api: .async)
    case "ahc-raw-loops-deadline": return PerLoopClients(url: url, api: .asyncWithBodyDeadline)
    case "ahc-delegate-loops": return PerLoopClients(url: url, api: .delegate)
    case "library-ahc":
        return LibraryClient(url: url, style: .response, transport: AsyncHTTPClientTransport())
    case "library-ahc-handler":
        return LibraryClient(url: url, style: .handler, transport: AsyncHTTPClientTransport())
    case "ahc-raw-tls-h1", "ahc-raw-tls-h2":
        return BenchTLS(http2: name.hasSuffix("h2")).map { RawAsyncHTTPClient(url: url, tls: $0) }
    case "library-ahc-tls-h1", "library-ahc-tls-h2":
        return BenchTLS(http2: name.hasSuffix("h2")).map { LibraryClient(url: url, tls: $0) }
    default: return makeCacheClient(named: name, url: url)
    }
}

/// The HTTPS clients' settings: the run's private CA, whose PEM file `BENCH_TLS_CA` names, trusted beside the system's
/// roots, and HTTP/2 offered (`-tls-h2`, against the server's `http2` listener) or not (`-tls-h1`).
struct BenchTLS {
    let caPEM: String
    let http2: Bool

    /// `nil`, with a message, when `BENCH_TLS_CA` names no readable file.
    init?(http2: Bool) {
        guard let path = ProcessInfo.processInfo.environment["BENCH_TLS_CA"],
            let pem = try? String(contentsOfFile: path, encoding: .utf8)
        else {
            print("bench-client: the HTTPS clients need BENCH_TLS_CA, the path of the CA's PEM file")
            return nil
        }
        caPEM = pem
        self.http2 = http2
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

    /// Over the engine and HTTPS: the client's TLS policy adds the run's CA to the system's roots, and the engine
    /// allows HTTP/2 or not.
    init(url: URL, tls: BenchTLS) {
        var engine = AsyncHTTPClientTransport.Configuration()
        engine.allowsHTTP2 = tls.http2
        var configuration = SimpleNetworking.Configuration()
        configuration.tls.additionalTrustRoots = (try? TLSCertificate.certificates(pem: tls.caPEM)) ?? []
        api = SimpleNetworking(
            baseURL: url.deletingLastPathComponent(), transport: AsyncHTTPClientTransport(configuration: engine),
            configuration: configuration)
        style = .response
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

/// AsyncHTTPClient as its README shows it: `execute` and `collect(upTo:)`, on the process-wide event loops. Over
/// HTTPS, the client's `TLSConfiguration` adds the run's CA to the system's roots, and its HTTP version is
/// `.http1Only` or `.automatic`.
struct RawAsyncHTTPClient: Client {
    let url: String
    let client: HTTPClient

    init(url: URL, tls: BenchTLS? = nil) {
        self.url = url.absoluteString
        guard let tls else {
            client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
            return
        }
        var configuration = HTTPClient.Configuration()
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        let roots = (try? NIOSSLCertificate.fromPEMBytes(Array(tls.caPEM.utf8))) ?? []
        tlsConfiguration.additionalTrustRoots = [.certificates(roots)]
        configuration.tlsConfiguration = tlsConfiguration
        configuration.httpVersion = tls.http2 ? .automatic : .http1Only
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func fetch() async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        guard response.status == .ok else { throw BenchError.status }
        return try await response.body.collect(upTo: 1 << 20).readableBytes
    }

    func close() async { try? await client.shutdown() }
}

/// AsyncHTTPClient's delegate API, the one the engine is built on (`execute(request:delegate:eventLoop:deadline:)`, a
/// deadline that covers the body), with a delegate that only counts the body's bytes: what the engine costs without
/// the library, to tell the API's share of the gap to `ahc-raw` from the library's.
struct DelegateAsyncHTTPClient: Client {
    let url: URL
    let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)

    func fetch() async throws -> Int {
        let task = client.execute(
            request: try HTTPClient.Request(url: url), delegate: ByteCounter(), eventLoop: .indifferent,
            deadline: .now() + .seconds(30))
        return try await task.futureResult.get()
    }

    func close() async { try? await client.shutdown() }
}

/// Counts a response's body bytes and checks its status; AsyncHTTPClient calls it on the request's one event loop, in
/// order, hence `@unchecked Sendable`.
final class ByteCounter: HTTPClientResponseDelegate, @unchecked Sendable {
    private var count = 0
    private var ok = false

    func didReceiveHead(task: HTTPClient.Task<Int>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        ok = head.status == .ok
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Int>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        count += buffer.readableBytes
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Int>) throws -> Int {
        guard ok else { throw BenchError.status }
        return count
    }
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

/// Clients that move a large body to or from a file, for the `download` and `upload` phases.
protocol FileTransfers: Sendable {
    func download(mebibytes: Int, port: Int, to file: URL) async throws
    func upload(_ file: URL, port: Int) async throws
}

extension LibraryClient {
    /// The error of `GET /gzip` under the default size limit, as text; `nil` when it succeeded.
    func fetchBomb(port: Int) async -> String? {
        guard let url = URL(string: "http://127.0.0.1:\(port)/gzip") else { return nil }
        do {
            _ = try await api.request(.get, url: url).retryPolicy(.never).response()
            return nil
        } catch {
            return "\(error)"
        }
    }
}

extension LibraryClient {
    /// Whether `GET /delay/N`, which the server answers after `seconds`, succeeded.
    func fetchDelayed(seconds: Int) async -> Bool {
        (try? await api.get("/delay/\(seconds)").retryPolicy(.never).response().statusCode) == 200
    }
}

extension LibraryClient: FileTransfers {
    func download(mebibytes: Int, port: Int, to file: URL) async throws {
        guard let url = URL(string: "http://127.0.0.1:\(port)/large/\(mebibytes)") else { throw BenchError.status }
        _ = try await api.request(.get, url: url).timeout(600).download(to: file)
    }

    func upload(_ file: URL, port: Int) async throws {
        guard let url = URL(string: "http://127.0.0.1:\(port)/upload") else { throw BenchError.status }
        _ = try await api.request(.put, url: url).body(fileAt: file).timeout(600).response()
    }
}

extension RawAsyncHTTPClient: FileTransfers {
    /// AsyncHTTPClient streaming the body to a file as its documentation shows: `execute`, then each piece of
    /// `response.body` written as it comes.
    func download(mebibytes: Int, port: Int, to file: URL) async throws {
        let response = try await client.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/large/\(mebibytes)"), timeout: .seconds(600))
        guard response.status == .ok else { throw BenchError.status }
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        for try await piece in response.body { try piece.withUnsafeReadableBytes { try handle.write(contentsOf: $0) } }
    }

    func upload(_ file: URL, port: Int) async throws { throw BenchError.status }
}

/// Writes `count` zero bytes to `file` in pieces of 1 MiB.
func writeZeros(_ count: Int, to file: URL) {
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    guard let handle = try? FileHandle(forWritingTo: file) else { return }
    defer { try? handle.close() }
    let piece = Data(count: 1 << 20)
    for _ in 0..<(count >> 20) { try? handle.write(contentsOf: piece) }
}
