import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The samples of the DocC article ComingFromKringle.md, run against an in-memory transport.

// DOC-SAMPLE: ComingFromKringle/endpoint
struct Cat: Decodable, Sendable {
    var name: String
    var mood: String
}

enum KittyEndpoint: Endpoint {
    case profile(catName: String)

    typealias Response = Cat
    var baseURL: URL? { URL(string: "https://api.kringlekitty.com") }
    var path: String { "/cats/{catName}/" }
    var pathValues: [String: String] {
        switch self {
        case .profile(let catName): ["catName": catName]
        }
    }
}
// DOC-SAMPLE-END

func kringleAwait(networkClient: SimpleNetworking) async -> String? {
    // DOC-SAMPLE: ComingFromKringle/await
    do {
        let cat = try await networkClient.send(KittyEndpoint.profile(catName: "Kringle"))
        print("🐱 \(cat.name) is \(cat.mood)")
        return cat.mood
    } catch {
        print("You gotta be kitten me!")
        return nil
    }
    // DOC-SAMPLE-END
}

func kringleVerbs(networkClient: SimpleNetworking) async throws -> String {
    // DOC-SAMPLE: ComingFromKringle/verbs
    let cat = try await networkClient.get(KittyEndpoint.profile(catName: "Kringle"))
    try await networkClient.delete(KittyEndpoint.profile(catName: "Kringle"))  // sent as DELETE
    try await networkClient.send(KittyEndpoint.profile(catName: "Kringle"), method: .delete)  // the same
    // DOC-SAMPLE-END
    return cat.mood
}

// `print` stands in for Swift's own, so that the test sees the lines.
func kringleHandlers(networkClient: SimpleNetworking, print: @escaping @Sendable (String) -> Void) throws {
    // DOC-SAMPLE: ComingFromKringle/handlers
    try networkClient.request(for: KittyEndpoint.profile(catName: "Kringle"))  // decoded in the request's task
        .on(success: { cat in print("🐱 \(cat.name)") })
        .on(error: { _ in print("You gotta be kitten me!") })
        .execute(on: networkClient)
    // DOC-SAMPLE-END
}

func kringleCookies(networkClient: SimpleNetworking) async throws -> [String] {
    // DOC-SAMPLE: ComingFromKringle/cookies
    _ = try await networkClient.post("/login").body(form: ["user": "kringle"]).response()
    // The login's Set-Cookie is kept and sent with the next requests; a past Expires deletes the cookie.
    let names = networkClient.cookieJar?.cookies.map(\.name) ?? []
    // DOC-SAMPLE-END
    return names
}

@Suite("The ComingFromKringle article's samples run")
struct ComingFromKringleSampleTests {
    private func client() throws -> (SimpleNetworking, MockTransport) {
        let transport = MockTransport()
        transport.route { request in
            switch request.url.absoluteString {
            case "https://api.kringlekitty.com/cats/Kringle/": .json(#"{"name": "Kringle", "mood": "sleepy"}"#)
            case "https://api.kringlekitty.com/login": .status(204, headers: ["Set-Cookie": "session=1; Path=/"])
            default: .json("{}", status: 404)
            }
        }
        let base = try #require(URL(string: "https://api.kringlekitty.com"))
        return (SimpleNetworking(baseURL: base, transport: transport), transport)
    }

    @Test("The endpoint decodes its cat, awaited and through handlers, from its own base URL")
    func endpoint() async throws {
        let (api, transport) = try client()
        #expect(await kringleAwait(networkClient: api) == "sleepy")
        let log = EventLog()
        try kringleHandlers(networkClient: api, print: { log.append($0) })
        #expect(await eventually { log.all == ["🐱 Kringle"] })
        #expect(
            transport.requests.map(\.url.absoluteString).allSatisfy {
                $0 == "https://api.kringlekitty.com/cats/Kringle/"
            })
        #expect(transport.requests.count == 2)
    }

    @Test("The verbs take the endpoint and send the method they name")
    func verbs() async throws {
        let (api, transport) = try client()
        #expect(try await kringleVerbs(networkClient: api) == "sleepy")
        #expect(transport.requests.map(\.method) == [.get, .delete, .delete])
    }

    @Test("The login cookie is kept by the client's jar")
    func cookies() async throws {
        let (api, _) = try client()
        #expect(try await kringleCookies(networkClient: api) == ["session"])
    }
}
