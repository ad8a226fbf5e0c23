import Foundation
import FuzzHarness
import SimpleNetworking

/// `CookieJar.load(from:)` on any file.
///
/// Invariant: no trap; a readable file is either loaded or refused as `CookieJarError.corruptFile`; the load report
/// names skipped entries once each, in file order, and counts at least the cookies the jar holds; and whatever was
/// loaded passes the jar's own rules and saves and loads back the same, whole.
///
/// Input: the file's bytes (see `Corpus/fuzz-cookie-file` for saved jars).
@main
enum FuzzCookieFile: FuzzTarget {
    static func check(_ input: FuzzInput) {
        let file = ScratchFiles.file("input.json")
        do {
            try Data(input.bytes).write(to: file)
        } catch {
            fatalError("cannot write the input to \(file.path): \(error)")
        }
        let jar = CookieJarChecks.makeJar()
        do {
            let report = try jar.load(from: file)
            let indices = report.skipped.map(\.index)
            Fuzzer.require(
                zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 } && indices.allSatisfy { $0 >= 0 },
                "skipped entries are reported once each, in file order: \(indices)")
            Fuzzer.require(
                jar.cookies.count <= report.loaded,
                "the jar holds no more cookies than the load reports: \(jar.cookies.count) against \(report)")
        } catch {
            guard case .corruptFile = error else {
                Fuzzer.require(false, "a readable file is loaded or refused as corrupt, not: \(error)")
                return
            }
        }
        CookieJarChecks.requireConsistency(of: jar)
    }
}
