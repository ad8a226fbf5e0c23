// Reads the `documentation-coverage.json` that `docc convert --experimental-documentation-coverage` writes and fails
// when a public symbol has no documentation (no abstract), listing each one. Run by .ci/docs:
//
//     swift .ci/doc-coverage.swift .build/docs/SimpleNetworking.doccarchive/documentation-coverage.json
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: swift .ci/doc-coverage.swift <documentation-coverage.json>")
    exit(2)
}

let entries: [[String: Any]]
do {
    let data = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
    guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
        print("error: \(arguments[1]) is not a list of coverage entries")
        exit(1)
    }
    entries = array
} catch {
    print("error: cannot read \(arguments[1]): \(error)")
    exit(1)
}

let symbols = entries.filter { ($0["kind"] as? [String: Any])?["isSymbol"] as? Bool == true }
let undocumented = symbols.filter { $0["hasAbstract"] as? Bool != true }
    .map { entry -> String in
        let kind = (entry["kind"] as? [String: Any])?["name"] as? String ?? "Symbol"
        let path = (entry["referencePath"] as? String)?.components(separatedBy: "/documentation/").last
        return "\(kind): \(path ?? entry["title"] as? String ?? "?")"
    }
    .sorted()

// A symbol graph that failed to load would leave nothing to check; that must not pass.
guard symbols.count >= 20 else {
    print("error: only \(symbols.count) symbols in the coverage report; were the symbol graphs found?")
    exit(1)
}
guard undocumented.isEmpty else {
    print("error: \(undocumented.count) public symbols have no documentation comment:")
    for line in undocumented { print("  \(line)") }
    exit(1)
}
print("documentation coverage: all \(symbols.count) public symbols are documented")
