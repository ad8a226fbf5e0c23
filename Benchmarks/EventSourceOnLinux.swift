// Added by `bash Benchmarks/run --events` to its copy of mattt/EventSource 1.1.1, whose connection code calls
// URLSession's `bytes(for:delegate:)`: FoundationNetworking has none, so on Linux the package does not build. The
// benchmark uses only the package's parser (`EventSource.Parser`); this stand-in lets the rest compile and fails if
// it is ever called.
#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking

    extension URLSession {
        func bytes(
            for request: URLRequest, delegate: (any URLSessionTaskDelegate)?
        ) async throws -> (AsyncThrowingStream<UInt8, any Error>, URLResponse) {
            throw URLError(.unsupportedURL)
        }
    }
#endif
