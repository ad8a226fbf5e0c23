// swift-tools-version:6.0
import Foundation
import PackageDescription

// Benchmarks of SimpleNetworking against raw URLSession and raw AsyncHTTPClient, on loopback. A package of its own, so
// that the library keeps no dependencies; `bash Benchmarks/run` prints the table (<doc:Performance>).
let package = Package(
    name: "SimpleNetworkingBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "SimpleNetworking", path: ".."),
        .package(name: "SimpleNetworkingAsyncHTTPClient", path: "../Engines/AsyncHTTPClient"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // The server, in a process of its own so that only the client's cost is measured.
        .executableTarget(
            name: "bench-server",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/BenchServer"
        ),
        // One client per process: requests per second, CPU and memory of that client alone.
        .executableTarget(
            name: "bench-client",
            dependencies: [
                .product(name: "SimpleNetworking", package: "SimpleNetworking"),
                .product(name: "SimpleNetworkingTesting", package: "SimpleNetworking"),
                .product(name: "SimpleNetworkingAsyncHTTPClient", package: "SimpleNetworkingAsyncHTTPClient"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/BenchClient"
        ),
    ],
    swiftLanguageModes: [.v6]
)

// mattt/EventSource's parser, for `bash Benchmarks/run --events` only: its 1.1.1 does not build on Linux as it is
// (its connection code calls URLSession's `bytes(for:delegate:)`, which FoundationNetworking lacks), so the runner
// makes a copy of it with one file of ours added (EventSourceOnLinux.swift) and names the copy here. Without the
// variable, as in CI, the benchmarks do not depend on it.
if let eventSource = ProcessInfo.processInfo.environment["BENCH_EVENTSOURCE_PATH"] {
    package.dependencies.append(.package(name: "EventSource", path: eventSource))
    for target in package.targets where target.name == "bench-client" {
        target.dependencies.append(.product(name: "EventSource", package: "EventSource"))
        // Not canImport(EventSource): a module left in .build by an earlier build would pass that test.
        target.swiftSettings = (target.swiftSettings ?? []) + [.define("BENCH_EVENTSOURCE")]
    }
}
