import Foundation
import SimpleNetworking

/// The invariants of a cookie jar that both cookie targets check: every cookie it holds follows its own rules, and
/// what it saves it loads back.
public enum CookieJarChecks {
    /// The fixed time every jar of a run lives at, so that an input always behaves the same: 2025-06-15.
    public static let now = Date(timeIntervalSince1970: 1_750_000_000)

    /// An empty jar with the default limits, on the fixed clock.
    /// - Returns: The jar.
    public static func makeJar() -> CookieJar {
        CookieJar(now: { now })
    }

    /// Checks that every cookie in `jar` passes the jar's own rules (an empty jar's `add(_:)` takes it), and that
    /// `save(to:)` then `load(from:)` into a new jar gives back exactly the persistent cookies.
    /// - Parameter jar: A jar on the fixed clock.
    public static func requireConsistency(of jar: CookieJar) {
        let cookies = jar.cookies
        guard !cookies.isEmpty else { return }
        let judge = makeJar()
        for cookie in cookies {
            Fuzzer.require(judge.add(cookie), "a cookie the jar holds passes its own rules (add refuses \(cookie))")
        }
        let persistent = cookies.filter { !$0.isSession }
        guard !persistent.isEmpty else { return }
        let file = ScratchFiles.file("jar.json")
        do {
            try jar.save(to: file)
        } catch {
            Fuzzer.require(false, "the jar saves what it holds: \(error)")
        }
        let loaded = makeJar()
        do {
            let report = try loaded.load(from: file)
            Fuzzer.require(
                report.loaded == persistent.count && report.expired == 0 && report.skipped.isEmpty,
                "what the jar saves, it loads whole: \(persistent.count) saved, load reports \(report)")
        } catch {
            Fuzzer.require(false, "what the jar saves, it loads: \(error)")
        }
        let back = loaded.cookies
        let changed = Set(persistent).subtracting(back)
        Fuzzer.require(
            back.count == persistent.count && changed.isEmpty,
            "what the jar saves, it loads back the same: \(persistent.count) persistent cookies saved, "
                + "\(back.count) loaded; not loaded as saved: \(changed.map(\.description))")
    }
}
