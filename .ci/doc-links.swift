// Checks the links of README.md and CONTRIBUTING.md, and what code comments cite of the documentation:
//
// - every relative link target in README.md and CONTRIBUTING.md exists;
// - every `#anchor` link in them names a heading of the file it points to (its own file for a bare `#anchor`), by
//   GitHub's anchor rules;
// - every comment in Sources/, Tests/, Engines/, FuzzTesting/ and Benchmarks/ that cites `README, "Section"`,
//   `README "Section"`, `README section "Section"` or `"Section" in the README` names a heading of README.md, and
//   likewise for CONTRIBUTING.md; every `<doc:Article>` such a comment cites is an article of the DocC catalog.
//
// Run from the package root by .ci/docs: `swift .ci/doc-links.swift`. Exits 1 and lists every problem otherwise.
import Foundation

let catalog = "Sources/SimpleNetworking/SimpleNetworking.docc"
let fileManager = FileManager.default
var problems: [String] = []

func read(_ path: String) -> String? {
    try? String(contentsOfFile: path, encoding: .utf8)
}

/// The heading texts of a Markdown file, outside fenced code blocks.
func headings(of path: String) -> [String] {
    guard let text = read(path) else { return [] }
    var inFence = false
    var result: [String] = []
    for line in text.components(separatedBy: "\n") {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") { inFence.toggle() }
        guard !inFence, line.hasPrefix("#") else { continue }
        let text = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty { result.append(text) }
    }
    return result
}

/// GitHub's anchor for a heading: lower case, punctuation but `-` and `_` removed, spaces as `-`.
func anchor(of heading: String) -> String {
    let kept = heading.lowercased().unicodeScalars.filter {
        CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
    }
    return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
}

func matches(_ pattern: String, in text: String) -> [[String]] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { fatalError("bad pattern \(pattern)") }
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).map { match in
        (0..<match.numberOfRanges).map { index in
            Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
        }
    }
}

// 1. Links of README.md and CONTRIBUTING.md.
for document in ["README.md", "CONTRIBUTING.md"] {
    guard let text = read(document) else {
        problems.append("\(document) is missing")
        continue
    }
    let directory = (document as NSString).deletingLastPathComponent
    for match in matches(#"\]\(([^)\s]+)\)"#, in: text) {
        let target = match[1]
        if target.contains("://") || target.hasPrefix("mailto:") { continue }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let path = parts[0].isEmpty ? document : (directory.isEmpty ? parts[0] : "\(directory)/\(parts[0])")
        guard fileManager.fileExists(atPath: path) else {
            problems.append("\(document): the link target \(target) does not exist")
            continue
        }
        if parts.count == 2 {
            let anchors = Set(headings(of: path).map(anchor(of:)))
            if !path.hasSuffix(".md") || !anchors.contains(parts[1]) {
                problems.append("\(document): the link \(target) names no heading of \(path)")
            }
        }
    }
}

// 2. What comments cite.
let readmeHeadings = Set(headings(of: "README.md"))
let contributingHeadings = Set(headings(of: "CONTRIBUTING.md"))
let articles = Set(
    ((try? fileManager.contentsOfDirectory(atPath: catalog)) ?? []).filter { $0.hasSuffix(".md") }.map {
        String($0.dropLast(3))
    })
let citations: [(pattern: String, document: String, headings: Set<String>)] = [
    (#"README(?:\.md)?(?:'s)?(?: section)?,? "([^"]+)""#, "README.md", readmeHeadings),
    (#""([^"]+)" (?:section )?(?:of|in) the README"#, "README.md", readmeHeadings),
    (#"CONTRIBUTING(?:\.md)?(?:'s)?(?: section)?,? "([^"]+)""#, "CONTRIBUTING.md", contributingHeadings),
]
let roots = ["Sources", "Tests", "Engines", "FuzzTesting", "Benchmarks"]
for root in roots {
    guard let enumerator = fileManager.enumerator(atPath: root) else { continue }
    for case let relative as String in enumerator {
        if relative.split(separator: "/").contains(where: { $0.hasPrefix(".build") }) { continue }
        let path = "\(root)/\(relative)"
        let isScript = !relative.contains(".") && !relative.hasSuffix("/")
        guard relative.hasSuffix(".swift") || relative.hasSuffix(".sh") || isScript else { continue }
        guard let text = read(path) else { continue }
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let comment: Substring
            if let slashes = line.range(of: "//") {
                comment = line[slashes.lowerBound...]
            } else if trimmed.hasPrefix("#"), !relative.hasSuffix(".swift") {
                comment = Substring(trimmed)
            } else {
                continue
            }
            let text = String(comment)
            for citation in citations {
                for match in matches(citation.pattern, in: text) where !citation.headings.contains(match[1]) {
                    problems.append(
                        "\(path):\(number + 1): cites \(citation.document), \"\(match[1])\", which has no such heading")
                }
            }
            for match in matches(#"<doc:([A-Za-z0-9_-]+)"#, in: text) where !articles.contains(match[1]) {
                problems.append("\(path):\(number + 1): cites <doc:\(match[1])>, which is not in \(catalog)")
            }
        }
    }
}

if problems.isEmpty {
    print("doc-links: README.md and CONTRIBUTING.md links and every documentation citation in comments resolve")
} else {
    for problem in problems { print("doc-links: \(problem)") }
    exit(1)
}
