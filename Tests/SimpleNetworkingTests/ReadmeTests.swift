import Foundation
import Testing

/// Keeps README.md and the compiled samples in the `ReadmeSamples.swift` files identical, in both directions, and fails when
/// either side is missing: a README without Swift samples, or a samples file without regions, does not pass.
@Suite("README samples are the compiled ones")
struct ReadmeTests {
    /// At least this many samples on each side; README.md has more, so losing most of them cannot go unnoticed.
    static let minimumSamples = 10

    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Why a file could not be split into samples.
    struct MalformedFile: Error, CustomStringConvertible {
        var description: String
    }

    /// The regions between `README-SAMPLE: name` and `README-SAMPLE-END`, dedented.
    /// - Throws: ``MalformedFile`` for a region that is never closed, opened inside another, closed without being
    ///   opened, or named twice.
    static func sampleRegions() throws -> [String: String] {
        var regions: [String: String] = [:]
        for file in sampleFiles {
            try collectRegions(of: read(file).components(separatedBy: "\n"), into: &regions)
        }
        return regions
    }

    /// The files that hold README samples: the library's, and the AsyncHTTPClient engine's, which its own package
    /// compiles and runs (the library's tests cannot import the engine).
    static let sampleFiles = [
        "Tests/SimpleNetworkingTests/ReadmeSamples.swift",
        "Engines/AsyncHTTPClient/Tests/SimpleNetworkingAsyncHTTPClientTests/ReadmeSamples.swift",
    ]

    private static func collectRegions(of lines: [String], into regions: inout [String: String]) throws {
        var name: String?
        var body: [String] = []
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// README-SAMPLE: ") {
                if let open = name { throw MalformedFile(description: "region '\(open)' is not closed") }
                name = String(trimmed.dropFirst("// README-SAMPLE: ".count))
                body = []
            } else if trimmed == "// README-SAMPLE-END" {
                guard let current = name else {
                    throw MalformedFile(description: "README-SAMPLE-END without a region, line \(index + 1)")
                }
                guard regions[current] == nil else { throw MalformedFile(description: "region '\(current)' twice") }
                regions[current] = dedent(body)
                name = nil
            } else if name != nil {
                body.append(line)
            }
        }
        if let open = name { throw MalformedFile(description: "region '\(open)' is not closed") }
    }

    /// A fenced code block of README.md: its info string (`swift`, `bash`, ...) and its text.
    struct Block {
        var info: String
        var text: String
        var isSwift: Bool { info.lowercased().hasPrefix("swift") }
    }

    /// Every fenced block of README.md, with backticks or tildes, indented or not.
    /// - Throws: ``MalformedFile`` for a block that is never closed.
    static func readmeFencedBlocks() throws -> [Block] {
        var blocks: [Block] = []
        var open: (fence: String, indent: Int, info: String, lines: [String])?
        for line in try read("README.md").components(separatedBy: "\n") {
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indent)
            if var current = open {
                if trimmed.trimmingCharacters(in: .whitespaces).hasPrefix(current.fence),
                    trimmed.trimmingCharacters(in: .whitespaces).allSatisfy({ $0 == current.fence.first })
                {
                    blocks.append(Block(info: current.info, text: current.lines.joined(separator: "\n")))
                    open = nil
                } else {
                    current.lines.append(String(line.dropFirst(min(current.indent, indent))))
                    open = current
                }
            } else if let marker = trimmed.first, marker == "`" || marker == "~" {
                let fence = String(trimmed.prefix { $0 == marker })
                guard fence.count >= 3 else { continue }
                let info = trimmed.dropFirst(fence.count).trimmingCharacters(in: .whitespaces)
                open = (fence, indent, info, [])
            }
        }
        if let current = open { throw MalformedFile(description: "a ```\(current.info) block is not closed") }
        return blocks
    }

    /// The Swift blocks of README.md.
    static func readmeBlocks() throws -> [String] {
        try readmeFencedBlocks().filter(\.isSwift).map(\.text)
    }

    private static func dedent(_ lines: [String]) -> String {
        let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }
        let indent = indents.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
            .joined(separator: "\n")
    }

    /// Only the `Package.swift` excerpt in "Install" is shown without being compiled.
    private static func isPackageManifest(_ block: String) -> Bool {
        block.contains(".package(url:")
    }

    @Test("Every compiled sample appears verbatim in README.md")
    func samplesAreInReadme() throws {
        let blocks = Set(try Self.readmeBlocks())
        let regions = try Self.sampleRegions()
        #expect(regions.count >= Self.minimumSamples, "ReadmeSamples.swift has only \(regions.count) regions")
        for (name, region) in regions.sorted(by: { $0.key < $1.key }) {
            let shown = blocks.contains(region)
            #expect(shown, "README.md lacks sample '\(name)' as compiled")
        }
    }

    @Test("Every Swift block in README.md is a compiled sample (the package manifest excepted)")
    func readmeHasNoUncompiledSwift() throws {
        let regions = Set(try Self.sampleRegions().values)
        let blocks = try Self.readmeBlocks()
        let manifests = blocks.filter(Self.isPackageManifest)
        let samples = blocks.filter { !Self.isPackageManifest($0) }
        #expect(manifests.count <= 1, "README.md has \(manifests.count) blocks passed off as the package manifest")
        #expect(samples.count >= Self.minimumSamples, "README.md has only \(samples.count) Swift samples")
        for block in samples {
            let compiled = regions.contains(block)
            #expect(compiled, "README.md block is not compiled:\n\(block)")
        }
    }

    @Test("No Swift code hides in a README block that is not marked swift")
    func noUnmarkedSwift() throws {
        let markers = ["import ", "let ", "var ", "func ", "try await ", "SimpleNetworking("]
        for block in try Self.readmeFencedBlocks() where !block.isSwift {
            let looksLikeSwift = markers.contains { block.text.contains($0) }
            #expect(!looksLikeSwift, "README.md has Swift code in a ```\(block.info) block:\n\(block.text)")
        }
    }
}
