// swift-tools-version:6.0
import PackageDescription

// An HTTP engine for SimpleNetworking built on AsyncHTTPClient (SwiftNIO), for Linux servers and high concurrency.
// A package of its own, so that the core library keeps no dependencies.
let package = Package(
    name: "SimpleNetworkingAsyncHTTPClient",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "SimpleNetworkingAsyncHTTPClient", targets: ["SimpleNetworkingAsyncHTTPClient"]),
        // The engine's body decoder alone, for the fuzz target of FuzzTesting/ (its entry is SPI): no public API.
        .library(name: "SimpleNetworkingContentDecoding", targets: ["SimpleNetworkingContentDecoding"]),
    ],
    dependencies: [
        .package(name: "SimpleNetworking", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
    ],
    targets: [
        // The system's zlib (on Linux, Debian's and Ubuntu's zlib1g-dev), for decoding gzip and deflate bodies.
        .target(name: "CZlibShim", linkerSettings: [.linkedLibrary("z")]),
        // gzip and deflate bodies decoded in bounded pieces, apart from SwiftNIO so that it can be fuzzed alone.
        .target(name: "SimpleNetworkingContentDecoding", dependencies: ["CZlibShim"]),
        .target(
            name: "SimpleNetworkingAsyncHTTPClient",
            dependencies: [
                "SimpleNetworkingContentDecoding",
                .product(name: "SimpleNetworking", package: "SimpleNetworking"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(
            name: "SimpleNetworkingAsyncHTTPClientTests",
            dependencies: [
                "SimpleNetworkingAsyncHTTPClient",
                "SimpleNetworkingContentDecoding",
                .product(name: "SimpleNetworking", package: "SimpleNetworking"),
                .product(name: "SimpleNetworkingTesting", package: "SimpleNetworking"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The HTTPS and HTTP/2 servers of the TLS tests, on loopback.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Policy for every target: Swift 6 language mode above, plus the upcoming features we rely on.
for target in package.targets where target.name != "CZlibShim" {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
