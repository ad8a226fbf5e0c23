// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for every parser of outside input, one executable each. A package of its own, like
// `Benchmarks/`, so that the library's manifest stays free of fuzzing. Built and run by `bash .ci/fuzz`
// (CONTRIBUTING.md, "Fuzzing"); the sanitizer flags come from its command line, never from this manifest.
let package = Package(
    name: "SimpleNetworkingFuzzTesting",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "fuzz-set-cookie", targets: ["FuzzSetCookie"]),
        .executable(name: "fuzz-cookie-file", targets: ["FuzzCookieFile"]),
        .executable(name: "fuzz-http-date", targets: ["FuzzHTTPDate"]),
        .executable(name: "fuzz-path-template", targets: ["FuzzPathTemplate"]),
        .executable(name: "fuzz-headers", targets: ["FuzzHeaders"]),
        .executable(name: "fuzz-mock-server-request", targets: ["FuzzMockServerRequest"]),
        .executable(name: "fuzz-event-stream", targets: ["FuzzEventStream"]),
        .executable(name: "fuzz-content-decoder", targets: ["FuzzContentDecoder"]),
        .executable(name: "fuzz-cache-control", targets: ["FuzzCacheControl"]),
        .executable(name: "fuzz-cache-entry", targets: ["FuzzCacheEntry"]),
        .executable(name: "fuzz-download-resumption", targets: ["FuzzDownloadResumption"]),
    ],
    dependencies: [
        .package(name: "SimpleNetworking", path: ".."),
        // For the AsyncHTTPClient engine's body decoder, a target of its own there that needs neither SwiftNIO nor
        // AsyncHTTPClient: only it is built here.
        .package(name: "SimpleNetworkingAsyncHTTPClient", path: "../Engines/AsyncHTTPClient"),
    ],
    targets: [
        // Declares libFuzzer's `LLVMFuzzerRunDriver`, which `-sanitize=fuzzer` links in.
        .target(name: "CLibFuzzer"),
        // The plumbing every target shares: the driver, splitting an input, scratch files, reference checks.
        .target(name: "FuzzHarness", dependencies: ["CLibFuzzer", "SimpleNetworking"]),
        .executableTarget(name: "FuzzSetCookie", dependencies: ["FuzzHarness", "SimpleNetworking"]),
        .executableTarget(name: "FuzzCookieFile", dependencies: ["FuzzHarness", "SimpleNetworking"]),
        .executableTarget(name: "FuzzHTTPDate", dependencies: ["FuzzHarness", "SimpleNetworking"]),
        .executableTarget(
            name: "FuzzPathTemplate",
            dependencies: [
                "FuzzHarness", "SimpleNetworking",
                .product(name: "SimpleNetworkingTesting", package: "SimpleNetworking"),
            ]
        ),
        .executableTarget(
            name: "FuzzHeaders",
            dependencies: [
                "FuzzHarness", "SimpleNetworking",
                .product(name: "SimpleNetworkingTesting", package: "SimpleNetworking"),
            ]
        ),
        .executableTarget(
            name: "FuzzMockServerRequest",
            dependencies: ["FuzzHarness", .product(name: "SimpleNetworkingTesting", package: "SimpleNetworking")]
        ),
        .executableTarget(name: "FuzzEventStream", dependencies: ["FuzzHarness", "SimpleNetworking"]),
        .executableTarget(name: "FuzzCacheControl", dependencies: ["FuzzHarness", "SimpleNetworking"]),
        .executableTarget(name: "FuzzCacheEntry", dependencies: ["FuzzHarness", "SimpleNetworking"]),
        .executableTarget(name: "FuzzDownloadResumption", dependencies: ["FuzzHarness", "SimpleNetworking"]),
        .executableTarget(
            name: "FuzzContentDecoder",
            dependencies: [
                "FuzzHarness",
                .product(name: "SimpleNetworkingContentDecoding", package: "SimpleNetworkingAsyncHTTPClient"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The library's policy for every Swift target: Swift 6 language mode above, plus the upcoming features it relies on.
for target in package.targets where target.name != "CLibFuzzer" {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
