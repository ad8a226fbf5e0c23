import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Nothing invalid reaches the network")
struct ValidationSweepTests {
    /// Where the swept byte is put.
    enum Slot: String, Sendable, CaseIterable, CustomStringConvertible {
        case headerName = "a header name"
        case headerValue = "a header value"
        case defaultHeaderValue = "a default header value"
        case method = "the method"
        var description: String { rawValue }

        /// RFC 9110: names and methods are tokens; values may hold tab, space and visible characters only.
        func accepts(_ byte: UInt8) -> Bool {
            let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
            switch self {
            case .headerName, .method: return tchar.contains(byte)
            case .headerValue, .defaultHeaderValue: return byte == 0x09 || (0x20...0x7E).contains(byte)
            }
        }
    }

    @Test("Every byte 0x00-0x7F: a rejected one throws before any connection", arguments: Slot.allCases)
    func sweep(slot: Slot) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        server.route { _ in .text("ok") }
        let api = makeLoopbackClient(server)
        defer { api.close() }
        var accepted = 0
        for byte in UInt8(0x00)...UInt8(0x7F) {
            let text = "A" + String(UnicodeScalar(byte)) + "B"
            if slot == .defaultHeaderValue { api.defaultHeaders = ["X-Swept": text] }
            let request: SimpleRequest
            switch slot {
            case .headerName: request = api.get("/sweep").header("X-" + text, "value")
            case .headerValue: request = api.get("/sweep").header("X-Swept", text)
            case .defaultHeaderValue: request = api.get("/sweep")
            case .method: request = api.request(HTTPMethod(rawValue: text), "/sweep")
            }
            let before = server.requestCount
            let error = await failure(of: request)
            if slot.accepts(byte) {
                accepted += 1
                #expect(error == nil, "byte 0x\(String(byte, radix: 16)) should be sent")
            } else {
                guard case .invalidRequest = error else {
                    Issue.record(
                        "byte 0x\(String(byte, radix: 16)): expected invalidRequest, got \(String(describing: error))")
                    continue
                }
                #expect(server.requestCount == before, "byte 0x\(String(byte, radix: 16)) reached the server")
            }
        }
        #expect(server.requestCount == accepted)
        if slot == .headerValue || slot == .defaultHeaderValue {
            let values = server.requests.compactMap { $0.header("X-Swept") }
            #expect(values.allSatisfy { $0.utf8.allSatisfy { slot.accepts($0) } })
        }
    }

    @Test(
        "Paths cannot take a request off the base URL's origin",
        arguments: [
            ("//EVIL/x", true), ("///EVIL/x", true), ("http://EVIL/x", true), ("https://EVIL/x", true),
            ("HTTP://EVIL/x", true), ("http:EVIL/x", true), ("http:/EVIL/x", true), ("\\\\EVIL/x", true),
            ("/\\EVIL/x", true), ("\\/EVIL/x", true), (" //EVIL/x", true), ("\t//EVIL/x", true),
            ("ftp://EVIL/x", true), ("/%2F%2FEVIL/x", false), ("@EVIL/x", false), ("/@EVIL/x", false),
            (":EVIL/x", false), ("/..//EVIL/x", true), ("/%2e%2e//EVIL/x", true),
            // White space before the slashes, ASCII or not, and scheme-like text that names no origin.
            ("\u{00A0}//EVIL/x", true), ("\u{3000}http://EVIL/x", true), ("\r\n//EVIL/x", true),
            ("Https:EVIL/x", true), ("svn+ssh://EVIL/x", true), ("mailto:x", false), ("a/b:c", false),
            ("é://EVIL/x", true),
        ])
    func escapes(template: String, refused: Bool) async throws {
        let home = try MockServer()
        let evil = try MockServer()
        defer { home.shutdown(); evil.shutdown() }
        home.route { _ in .text("home") }
        evil.route { _ in .text("evil") }
        let api = makeLoopbackClient(home) { $0.defaultHeaders = ["Authorization": "Bearer secret"] }
        defer { api.close() }
        let path = template.replacingOccurrences(of: "EVIL", with: "127.0.0.1:\(evil.port)")

        let error = await failure(of: api.get(path))

        #expect(evil.requestCount == 0)
        if refused {
            guard case .invalidURL = error else {
                Issue.record("expected invalidURL, got \(String(describing: error))")
                return
            }
            #expect(home.requestCount == 0)
        }
    }

    @Test("An absolute URL on another origin is allowed on purpose, without the default headers")
    func absoluteURLDropsDefaultHeaders() async throws {
        let home = try MockServer()
        let other = try MockServer()
        defer { home.shutdown(); other.shutdown() }
        other.route { _ in .text("other") }
        home.route { _ in .text("home") }
        let api = makeLoopbackClient(home) { $0.defaultHeaders = ["Authorization": "Bearer secret", "X-Api-Key": "k"] }
        defer { api.close() }

        _ = try await api.request(.get, url: other.url("/x")).response()
        _ = try await api.request(.get, url: home.url("/y")).response()

        #expect(other.requests.first?.header("Authorization") == nil)
        #expect(other.requests.first?.header("X-Api-Key") == nil)
        #expect(home.requests.first?.header("Authorization") == "Bearer secret")
    }

    @Test(
        "Only http and https URLs can be requested",
        arguments: [
            "ftp://127.0.0.1/x", "file:///etc/passwd", "ws://127.0.0.1/x", "data:text/plain,hi", "gopher://127.0.0.1/",
        ])
    func schemes(url: String) async throws {
        let server = try MockServer()
        defer { server.shutdown() }
        let api = makeLoopbackClient(server)
        defer { api.close() }

        let error = await failure(of: api.request(.get, url: try #require(URL(string: url))))

        guard case .invalidURL = error else {
            Issue.record("expected invalidURL, got \(String(describing: error))")
            return
        }
        #expect(server.requestCount == 0)
    }
}
