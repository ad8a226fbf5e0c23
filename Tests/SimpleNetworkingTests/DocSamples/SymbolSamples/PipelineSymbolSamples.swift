import Foundation
import SimpleNetworking
import Testing

// The Swift blocks of the `///` comments in Sources/SimpleNetworking/Pipeline/, between `SYMBOL-SAMPLE: File#name`
// and `SYMBOL-SAMPLE-END`: `ReadmeTests.SymbolDocs` checks that each comment shows its region verbatim.
enum PipelineSymbolSamples {
    // SYMBOL-SAMPLE: Sources/SimpleNetworking/Pipeline/RequestInterceptor.swift#user-agent
    struct UserAgent: RequestInterceptor {
        func intercept(_ request: HTTPRequest, context: InterceptorContext, next: InterceptorNext)
            async throws(SimpleNetworkingError) -> SimpleResponse
        {
            var request = request
            request.headers["User-Agent"] = "Example/1.0"
            return try await next(request)
        }
    }
    // SYMBOL-SAMPLE-END

    static func intercept(api: SimpleNetworking) async throws -> User {
        // SYMBOL-SAMPLE: Sources/SimpleNetworking/Pipeline/SimpleRequest+Interceptors.swift#intercept
        let user = try await api.get("/me").intercept(with: UserAgent()).decode(User.self)
        // SYMBOL-SAMPLE-END
        return user
    }
}
