import Foundation
import Testing

/// Keeps README.md and the compiled samples in `ReadmeSamples.swift` identical, in both directions.
@Suite("README samples are the compiled ones")
struct ReadmeTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The regions between `README-SAMPLE: name` and `README-SAMPLE-END`, dedented.
    static func sampleRegions() throws -> [String: String] {
        let lines = try read("Tests/SimpleNetworkingTests/ReadmeSamples.swift").components(separatedBy: "\n")
        var regions: [String: String] = [:]
        var name: String?
        var body: [String] = []
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// README-SAMPLE: ") {
                name = String(trimmed.dropFirst("// README-SAMPLE: ".count))
                body = []
            } else if trimmed == "// README-SAMPLE-END", let current = name {
                regions[current] = dedent(body)
                name = nil
            } else if name != nil {
                body.append(line)
            }
        }
        return regions
    }

    /// The ```swift blocks of README.md.
    static func readmeBlocks() throws -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in try read("README.md").components(separatedBy: "\n") {
            if current == nil, line == "```swift" {
                current = []
            } else if let lines = current, line == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    private static func dedent(_ lines: [String]) -> String {
        let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }
        let indent = indents.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
            .joined(separator: "\n")
    }

    @Test("Every compiled sample appears verbatim in README.md")
    func samplesAreInReadme() throws {
        let blocks = Set(try Self.readmeBlocks())
        let regions = try Self.sampleRegions()
        #expect(regions.count >= 10)
        for (name, region) in regions.sorted(by: { $0.key < $1.key }) {
            let shown = blocks.contains(region)
            #expect(shown, "README.md lacks sample '\(name)' as compiled")
        }
    }

    @Test("Every Swift block in README.md is a compiled sample (the package manifest excepted)")
    func readmeHasNoUncompiledSwift() throws {
        let regions = Set(try Self.sampleRegions().values)
        for block in try Self.readmeBlocks() where !block.contains(".package(url:") {
            let compiled = regions.contains(block)
            #expect(compiled, "README.md block is not compiled:\n\(block)")
        }
    }
}
