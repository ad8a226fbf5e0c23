// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SimpleNetworking",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "SimpleNetworking", targets: ["SimpleNetworking"]),
        .library(name: "SimpleNetworkingTesting", targets: ["SimpleNetworkingTesting"]),
        .executable(name: "simple-networking-demo", targets: ["SimpleNetworkingDemo"]),
    ],
    targets: [
        .target(name: "SimpleNetworking"),
        .target(name: "SimpleNetworkingTesting", dependencies: ["SimpleNetworking"]),
        .executableTarget(
            name: "SimpleNetworkingDemo",
            dependencies: ["SimpleNetworking", "SimpleNetworkingTesting"]
        ),
        // Measures timing, memory and descriptors in a process of its own; internal, not a product.
        .executableTarget(
            name: "transport-probe",
            dependencies: ["SimpleNetworking", "SimpleNetworkingTesting"],
            path: "Sources/TransportProbe"
        ),
        .testTarget(
            name: "SimpleNetworkingTests",
            // transport-probe: built for the tests that run it in a process of their own (`Probe` in
            // TransportRobustnessTests.swift).
            dependencies: ["SimpleNetworking", "SimpleNetworkingTesting", "transport-probe"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "SimpleNetworkingTestingTests", dependencies: ["SimpleNetworkingTesting"]),
    ],
    swiftLanguageModes: [.v6]
)

// Policy for every target: Swift 6 language mode above, plus the upcoming features we rely on.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
