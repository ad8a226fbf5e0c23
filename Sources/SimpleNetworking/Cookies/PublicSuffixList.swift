/// The Public Suffix List compiled into the library: which domains are public suffixes (`com`, `co.uk`,
/// `github.io`), under which nobody may set a cookie for every site.
///
/// The rules live in one generated string (`PublicSuffixList+Data.swift`, written by
/// `Scripts/generate-public-suffix-list.py`) and are parsed into three sets the first time a cookie needs them: a
/// set build over about 9,500 lines, cheap enough to run on any thread. <doc:Cookies> states the list's date.
package enum PublicSuffixList {
    /// The parsed rules: plain names, the parents of wildcard rules (`*.ck` is kept as `ck`), and exceptions
    /// (`!www.ck` is kept as `www.ck`).
    struct Rules: Sendable {
        var names: Set<Substring> = []
        var wildcardParents: Set<Substring> = []
        var exceptions: Set<Substring> = []

        init(_ text: String) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("!") {
                    exceptions.insert(line.dropFirst())
                } else if line.hasPrefix("*.") {
                    wildcardParents.insert(line.dropFirst(2))
                } else {
                    names.insert(line)
                }
            }
        }
    }

    /// Parsed at first use; no lock of the library is held then (see the type's documentation).
    static let rules = Rules(rulesText)

    /// The public suffix of `domain` by the list's algorithm: the longest matching rule wins, an exception rule
    /// (`!`) beats every other, a wildcard (`*`) matches one label, and an unlisted top-level label is a suffix
    /// of its own (the default rule `*`).
    /// - Parameter domain: A lowercased host name in ASCII (`xn--` labels for non-ASCII), without a trailing dot.
    /// - Returns: The suffix, a tail of `domain`; `domain` itself when it is a suffix.
    package static func publicSuffix(of domain: String) -> Substring {
        let rules = rules
        var start = domain.startIndex
        while true {
            let candidate = domain[start...]
            let dot = candidate.firstIndex(of: ".")
            let parent = dot.map { domain[domain.index(after: $0)...] }
            if rules.exceptions.contains(candidate) {
                return parent ?? candidate
            }
            if rules.names.contains(candidate) { return candidate }
            if let parent, rules.wildcardParents.contains(parent) { return candidate }
            guard let parent else { return candidate }
            start = parent.startIndex
        }
    }

    /// Whether `domain` is itself a public suffix, such as `com`, `co.uk` or `github.io`.
    package static func isPublicSuffix(_ domain: String) -> Bool {
        publicSuffix(of: domain).startIndex == domain.startIndex
    }

    /// The registrable domain of `host` (its public suffix and one more label: `example.co.uk` for
    /// `www.example.co.uk`), or `host` itself when it is a public suffix.
    package static func registrableDomain(of host: String) -> String {
        let suffix = publicSuffix(of: host)
        guard suffix.startIndex > host.startIndex else { return host }
        let beforeDot = host.index(before: suffix.startIndex)
        let start = host[..<beforeDot].lastIndex(of: ".").map { host.index(after: $0) } ?? host.startIndex
        return String(host[start...])
    }
}
