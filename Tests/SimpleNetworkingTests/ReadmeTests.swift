import Foundation
import Testing

/// Keeps README.md and the DocC articles identical to the compiled samples, in both directions, and fails when either
/// side is missing: a README or article block without its region, a region that no document shows, or a region that
/// names an article that does not exist.
///
/// README.md's Swift blocks are the regions between `// README-SAMPLE: name` and `// README-SAMPLE-END` in the
/// `ReadmeSamples.swift` files. The Swift blocks of the article `X.md` in the DocC catalog are the regions between
/// `// DOC-SAMPLE: X/name` and `// DOC-SAMPLE-END` in any Swift file under a `DocSamples` folder of the tests: the
/// library's, and the AsyncHTTPClient engine's, which its own package compiles and runs (the library's tests cannot
/// import the engine). The Swift blocks of the `///` comments in a source file `F` (under `Sources/` or the engine's
/// `Sources/`) are the regions between `// SYMBOL-SAMPLE: F#name` and `// SYMBOL-SAMPLE-END` in the same folders.
@Suite("README samples are the compiled ones")
struct ReadmeTests {
    /// At least this many samples on each side; README.md has more, so losing most of them cannot go unnoticed.
    static let minimumSamples = 8

    /// The files that hold README samples.
    static let sampleFiles = ["Tests/SimpleNetworkingTests/ReadmeSamples.swift"]

    @Test("Every compiled sample appears verbatim in README.md")
    func samplesAreInReadme() throws {
        let blocks = Set(
            try DocumentSamples.fencedBlocks(of: DocumentSamples.read("README.md")).filter(\.isSwift).map(\.text))
        let regions = try DocumentSamples.regions(marker: "README-SAMPLE", in: Self.sampleFiles)
        #expect(regions.count >= Self.minimumSamples, "ReadmeSamples.swift has only \(regions.count) regions")
        for (name, region) in regions.sorted(by: { $0.key < $1.key }) {
            let shown = blocks.contains(region)
            #expect(shown, "README.md lacks sample '\(name)' as compiled")
        }
    }

    @Test("Every Swift block in README.md is a compiled sample (the package manifest excepted)")
    func readmeHasNoUncompiledSwift() throws {
        let regions = Set(try DocumentSamples.regions(marker: "README-SAMPLE", in: Self.sampleFiles).values)
        let blocks = try DocumentSamples.fencedBlocks(of: DocumentSamples.read("README.md")).filter(\.isSwift).map(
            \.text)
        let manifests = blocks.filter(DocumentSamples.isPackageManifest)
        let samples = blocks.filter { !DocumentSamples.isPackageManifest($0) }
        #expect(manifests.count <= 1, "README.md has \(manifests.count) blocks passed off as the package manifest")
        #expect(samples.count >= Self.minimumSamples, "README.md has only \(samples.count) Swift samples")
        for block in samples {
            let compiled = regions.contains(block)
            #expect(compiled, "README.md block is not compiled:\n\(block)")
        }
    }

    @Test("No Swift code hides in a README block that is not marked swift")
    func noUnmarkedSwift() throws {
        for block in try DocumentSamples.fencedBlocks(of: DocumentSamples.read("README.md")) where !block.isSwift {
            #expect(!block.looksLikeSwift, "README.md has Swift code in a ```\(block.info) block:\n\(block.text)")
        }
    }
}

extension ReadmeTests {
    /// The `///` comments' Swift blocks (what DocC shows on each symbol's page) against the `SYMBOL-SAMPLE` regions.
    @Suite("Symbol documentation samples are the compiled ones")
    struct SymbolDocs {
        /// The folders whose Swift files' `///` comments are checked: the library's and the engine's sources.
        static let sourceFolders = ["Sources", "Engines/AsyncHTTPClient/Sources"]
        /// At least this many samples, so that a scan that finds no comment cannot pass.
        static let minimumSamples = 40

        /// Every region under the `DocSamples` folders, keyed by `F#name`.
        static func regions() throws -> [String: String] {
            let files = try DocumentSamples.docSampleFolders.flatMap(DocumentSamples.swiftFiles(under:))
            return try DocumentSamples.regions(marker: "SYMBOL-SAMPLE", in: files)
        }

        /// The source file a region belongs to: the part of its name before the last `#`.
        static func sourceFile(of name: String) throws -> String {
            guard let hash = name.lastIndex(of: "#"), hash != name.startIndex else {
                throw DocumentSamples.MalformedFile(
                    description: "SYMBOL-SAMPLE '\(name)' does not name File.swift#name")
            }
            return String(name[..<hash])
        }

        /// The fenced blocks of every `///` comment in `file`: each run of `///` lines, without the slashes and the
        /// one space after them.
        static func commentBlocks(in file: String) throws -> [DocumentSamples.Block] {
            var blocks: [DocumentSamples.Block] = []
            var comment: [String] = []
            for line in try DocumentSamples.read(file).components(separatedBy: "\n") + [""] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("///") {
                    let text = trimmed.dropFirst(3)
                    comment.append(String(text.hasPrefix(" ") ? text.dropFirst() : text))
                } else if !comment.isEmpty {
                    blocks += try DocumentSamples.fencedBlocks(of: comment.joined(separator: "\n"))
                    comment = []
                }
            }
            return blocks
        }

        /// Every Swift source file of ``sourceFolders`` with its comments' fenced blocks.
        static func sourceBlocks() throws -> [(file: String, blocks: [DocumentSamples.Block])] {
            try sourceFolders.flatMap(DocumentSamples.swiftFiles(under:)).map { ($0, try commentBlocks(in: $0)) }
        }

        @Test("Every SYMBOL-SAMPLE region names a source file whose comments show it verbatim")
        func regionsAreInTheirFiles() throws {
            let shown = Dictionary(
                uniqueKeysWithValues: try Self.sourceBlocks().map { ($0.file, $0.blocks.filter(\.isSwift).map(\.text)) }
            )
            for (name, region) in try Self.regions().sorted(by: { $0.key < $1.key }) {
                let file = try Self.sourceFile(of: name)
                guard let blocks = shown[file] else {
                    Issue.record("SYMBOL-SAMPLE '\(name)' names \(file), which is not a source file")
                    continue
                }
                #expect(blocks.contains(region), "\(file)'s comments lack sample '\(name)' as compiled")
            }
        }

        @Test("Every Swift block of every /// comment is a compiled region of its file")
        func commentsHaveNoUncompiledSwift() throws {
            var compiled: [String: Set<String>] = [:]
            for (name, region) in try Self.regions() {
                compiled[try Self.sourceFile(of: name), default: []].insert(region)
            }
            var samples = 0
            for (file, blocks) in try Self.sourceBlocks() {
                for block in blocks {
                    if block.isSwift {
                        samples += 1
                        let isCompiled = compiled[file]?.contains(block.text) ?? false
                        #expect(
                            isCompiled,
                            "\(file) has a /// Swift block with no SYMBOL-SAMPLE '\(file)#...':\n\(block.text)")
                    } else {
                        #expect(
                            !block.looksLikeSwift,
                            "\(file) has Swift code in a /// ```\(block.info) block:\n\(block.text)")
                    }
                }
            }
            #expect(samples >= Self.minimumSamples, "the sources' comments hold only \(samples) Swift samples")
        }
    }
    /// The DocC articles' Swift blocks against the `DOC-SAMPLE` regions.
    @Suite("DocC article samples are the compiled ones")
    struct Articles {
        /// At least this many articles and regions, so an emptied catalog or samples folder cannot pass.
        static let minimumArticles = 10
        static let minimumRegions = 20

        /// Every region under the `DocSamples` folders, keyed by `Article/name`.
        static func regions() throws -> [String: String] {
            let files = try DocumentSamples.docSampleFolders.flatMap(DocumentSamples.swiftFiles(under:))
            return try DocumentSamples.regions(marker: "DOC-SAMPLE", in: files)
        }

        /// The article a region belongs to: the part of its name before the first `/`.
        static func article(of name: String) throws -> String {
            guard let slash = name.firstIndex(of: "/"), slash != name.startIndex else {
                throw DocumentSamples.MalformedFile(description: "DOC-SAMPLE '\(name)' does not name Article/sample")
            }
            return String(name[..<slash])
        }

        @Test("Every DOC-SAMPLE region names an existing article that shows it verbatim")
        func regionsAreInTheirArticles() throws {
            let regions = try Self.regions()
            #expect(regions.count >= Self.minimumRegions, "the DocSamples folders hold only \(regions.count) regions")
            let articles = try DocumentSamples.articles()
            for (name, region) in regions.sorted(by: { $0.key < $1.key }) {
                let article = try Self.article(of: name)
                guard let text = articles[article] else {
                    Issue.record("DOC-SAMPLE '\(name)' names \(article).md, which is not in the DocC catalog")
                    continue
                }
                let blocks = try DocumentSamples.fencedBlocks(of: text).filter(\.isSwift).map(\.text)
                let shown = blocks.contains(region)
                #expect(shown, "\(article).md lacks sample '\(name)' as compiled")
            }
        }

        @Test("Every Swift block of every article is a compiled region of that article")
        func articlesHaveNoUncompiledSwift() throws {
            let articles = try DocumentSamples.articles()
            #expect(articles.count >= Self.minimumArticles, "the DocC catalog has only \(articles.count) articles")
            var compiled: [String: Set<String>] = [:]
            for (name, region) in try Self.regions() {
                compiled[try Self.article(of: name), default: []].insert(region)
            }
            for (article, text) in articles.sorted(by: { $0.key < $1.key }) {
                for block in try DocumentSamples.fencedBlocks(of: text) {
                    if block.isSwift {
                        let isCompiled = compiled[article]?.contains(block.text) ?? false
                        #expect(
                            isCompiled,
                            "\(article).md has a Swift block with no DOC-SAMPLE '\(article)/...':\n\(block.text)")
                    } else {
                        #expect(
                            !block.looksLikeSwift,
                            "\(article).md has Swift code in a ```\(block.info) block:\n\(block.text)")
                    }
                }
            }
        }
    }
}

/// Reads documents and sample files, relative to the package root.
enum DocumentSamples {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The DocC catalog, whose `.md` files are the articles.
    static let catalog = "Sources/SimpleNetworking/SimpleNetworking.docc"

    /// The folders whose Swift files hold the articles' samples: the library's tests and the engine's.
    static let docSampleFolders = [
        "Tests/SimpleNetworkingTests/DocSamples",
        "Engines/AsyncHTTPClient/Tests/SimpleNetworkingAsyncHTTPClientTests/DocSamples",
    ]

    /// Why a file could not be split into samples.
    struct MalformedFile: Error, CustomStringConvertible {
        var description: String
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The `.swift` files under `folder`, at any depth, as paths relative to the root, in a fixed order.
    /// - Throws: ``MalformedFile`` when the folder does not exist, so a moved folder cannot silently check nothing.
    static func swiftFiles(under folder: String) throws -> [String] {
        let url = root.appendingPathComponent(folder)
        guard let enumerator = FileManager.default.enumerator(atPath: url.path) else {
            throw MalformedFile(description: "\(folder) does not exist")
        }
        let files = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
        guard !files.isEmpty else { throw MalformedFile(description: "\(folder) holds no Swift file") }
        return files.map { "\(folder)/\($0)" }
    }

    /// The articles of the DocC catalog, keyed by file name without `.md`.
    static func articles() throws -> [String: String] {
        let folder = root.appendingPathComponent(catalog)
        var articles: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".md") {
            articles[String(name.dropLast(3))] = try read("\(catalog)/\(name)")
        }
        return articles
    }

    /// The regions between `// MARKER: name` and `// MARKER-END` in `files`, dedented.
    /// - Throws: ``MalformedFile`` for a region that is never closed, opened inside another, closed without being
    ///   opened, or named twice.
    static func regions(marker: String, in files: [String]) throws -> [String: String] {
        var regions: [String: String] = [:]
        for file in files {
            try collectRegions(marker: marker, of: read(file).components(separatedBy: "\n"), file: file, into: &regions)
        }
        return regions
    }

    private static func collectRegions(
        marker: String, of lines: [String], file: String, into regions: inout [String: String]
    ) throws {
        let open = "// \(marker): "
        let close = "// \(marker)-END"
        var name: String?
        var body: [String] = []
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(open) {
                if let current = name { throw MalformedFile(description: "\(file): region '\(current)' is not closed") }
                name = String(trimmed.dropFirst(open.count))
                body = []
            } else if trimmed == close {
                guard let current = name else {
                    throw MalformedFile(description: "\(file): \(marker)-END without a region, line \(index + 1)")
                }
                guard regions[current] == nil else {
                    throw MalformedFile(description: "\(file): region '\(current)' twice")
                }
                regions[current] = dedent(body)
                name = nil
            } else if name != nil {
                body.append(line)
            }
        }
        if let current = name { throw MalformedFile(description: "\(file): region '\(current)' is not closed") }
    }

    /// A fenced code block of a Markdown file: its info string (`swift`, `bash`, ...) and its text.
    struct Block {
        var info: String
        var text: String
        var isSwift: Bool { info.lowercased().hasPrefix("swift") }

        /// Whether the text has what only Swift code has, for blocks not marked `swift`.
        var looksLikeSwift: Bool {
            let markers = ["import ", "let ", "var ", "func ", "try await ", "SimpleNetworking("]
            return markers.contains { text.contains($0) }
        }
    }

    /// Every fenced block of a Markdown text, with backticks or tildes, indented or not.
    /// - Throws: ``MalformedFile`` for a block that is never closed.
    static func fencedBlocks(of text: String) throws -> [Block] {
        var blocks: [Block] = []
        var open: (fence: String, indent: Int, info: String, lines: [String])?
        for line in text.components(separatedBy: "\n") {
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

    private static func dedent(_ lines: [String]) -> String {
        let indents = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }
        let indent = indents.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
            .joined(separator: "\n")
    }

    /// Only the `Package.swift` excerpt in README.md's "Install" is shown without being compiled.
    static func isPackageManifest(_ block: String) -> Bool {
        block.contains(".package(url:")
    }
}
