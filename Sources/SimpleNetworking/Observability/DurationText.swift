import Foundation

/// Durations as every description prints them (events, attempt timings, attempts, errors): below a second in
/// milliseconds with at most one decimal (`191 ms`, `212.4 ms`, `0 ms`), from a second on in seconds with at most two
/// (`1.5 s`, `2.25 s`, `30 s`), so that a computed delay never prints as `0.19099801170521466 s`.
enum DurationText {
    /// `seconds` as text, such as `191 ms` or `1.5 s`.
    static func describe(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "\(seconds) s" }
        let milliseconds = trimmed(String(format: "%.1f", seconds * 1000))
        // Compared after rounding, so that 0.99996 s reads `1 s`, not `1000 ms`.
        if let value = Double(milliseconds), abs(value) < 1000 { return milliseconds + " ms" }
        return trimmed(String(format: "%.2f", seconds)) + " s"
    }

    /// `text` without trailing zeros after its decimal point, nor the point itself when nothing follows it.
    private static func trimmed(_ text: String) -> String {
        guard text.contains(".") else { return text }
        var text = Substring(text)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : String(text)
    }
}
