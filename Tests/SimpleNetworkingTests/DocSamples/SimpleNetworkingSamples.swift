import Foundation
import SimpleNetworking
import SimpleNetworkingTesting
import Testing

// The sample of the catalog's landing page, SimpleNetworking.md: compiled only, since it names a host on the internet.

func overviewSample() async throws -> User {
    // swift-format-ignore: NeverForceUnwrap
    // DOC-SAMPLE: SimpleNetworking/overview
    let api = SimpleNetworking(baseURL: URL(string: "https://api.example.com")!)
    let user = try await api.get("/users/1").decode(User.self)
    // DOC-SAMPLE-END
    return user
}
