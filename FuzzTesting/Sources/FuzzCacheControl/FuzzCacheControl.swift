import FuzzHarness
@_spi(Fuzzing) import SimpleNetworking

/// The cache rules (through `CacheRules.evaluate(status:response:request:elapsed:location:)`, SPI) on any
/// `Cache-Control`, `Expires`, `Age`, `Date`, `Last-Modified`, `Vary` and `ETag` fields: parsing, freshness, age,
/// storability, the lookup decision, stale-if-error, a `304` merge and invalidation.
///
/// Invariant: no trap; the age and the lifetime are finite and at least 0; an `Age` sent is within 0...2^31; the
/// decision is one of the six; a response with `no-store` in the request, or in the response (unless
/// `must-understand` with an understood status), or `Vary: *`, is never stored; nothing unstored is served; nothing
/// is served without validation under `no-cache`, nor stale under `must-revalidate` (stale-if-error included);
/// `only-if-cached` never reaches the network; a fresh answer is younger than the lifetime; a stored response matches
/// the request that brought it, and a `304` with its own fields applies to it and keeps its `Content-Length`;
/// invalidation starts with the target and names at most three keys.
///
/// Input: byte 0 chooses the status (its low 4 bits) and the seconds between storing and looking up (its high 4
/// bits); the rest is fields split at `0xFF`, in order: response `Cache-Control`, `Expires`, `Age`, `Date`,
/// `Last-Modified`, `Vary`, `ETag`, request `Cache-Control`, a `Location`. A line feed in a field splits it into
/// several field lines.
@main
enum FuzzCacheControl: FuzzTarget {
    static let statuses = [200, 203, 204, 206, 301, 304, 404, 500, 599, 201, 103, 302, 410, 501, 999, 0]
    static let elapsedSeconds: [Double] = [
        0, 1, 3, 59, 60, 3_600, 86_399, 86_401, 1e6, 2_147_483_648, 1e12, -60, -1e9, 0.5, 10, 600,
    ]
    static let decisions: Set<String> = [
        "serveFresh", "serveStale", "serveStaleWhileRevalidating", "revalidate", "fetch", "gatewayTimeout",
    ]
    static let responseNames = ["Cache-Control", "Expires", "Age", "Date", "Last-Modified", "Vary", "ETag"]

    static func check(_ input: FuzzInput) {
        let fields = input.fields + Array(repeating: "", count: max(0, 9 - input.fields.count))
        let status = statuses[Int(input.selector & 0x0F)]
        let elapsed = elapsedSeconds[Int(input.selector >> 4)]
        var response: [(name: String, value: String)] = []
        for (name, value) in zip(responseNames, fields) where !value.isEmpty {
            for line in value.split(separator: "\n", omittingEmptySubsequences: false) {
                response.append((name, String(line)))
            }
        }
        var request: [(name: String, value: String)] = [("Accept", "text/plain"), ("Foo", "1")]
        for line in fields[7].split(separator: "\n", omittingEmptySubsequences: false) where !fields[7].isEmpty {
            request.append(("Cache-Control", String(line)))
        }
        let report = CacheRules.evaluate(
            status: status, response: response, request: request, elapsed: elapsed, location: fields[8])

        Fuzzer.require(report.currentAge.isFinite && report.currentAge >= 0, "age >= 0, not \(report.currentAge)")
        Fuzzer.require(report.lifetime.isFinite && report.lifetime >= 0, "lifetime >= 0, not \(report.lifetime)")
        Fuzzer.require(decisions.contains(report.decision), "a known decision, not \(report.decision)")
        if let age = report.ageFieldValue {
            Fuzzer.require((0...2_147_483_648).contains(age), "an Age within 0...2^31, not \(age)")
        }
        if report.requestNoStore || report.responseNoStoreApplies || report.varyAll {
            Fuzzer.require(!report.isStored, "no-store or Vary: * is never stored")
        }
        let serves = report.decision.hasPrefix("serve")
        if !report.isStored {
            Fuzzer.require(
                report.decision == "fetch" || report.decision == "gatewayTimeout",
                "nothing stored, nothing served or revalidated: \(report.decision)")
        }
        if report.noCache {
            Fuzzer.require(!serves, "no-cache serves nothing unvalidated: \(report.decision)")
            Fuzzer.require(report.staleIfErrorAge == nil, "no-cache serves nothing on error")
        }
        if report.mustRevalidate {
            Fuzzer.require(
                report.decision != "serveStaleWhileRevalidating" && report.decision != "serveStale",
                "must-revalidate serves nothing stale: \(report.decision)")
            Fuzzer.require(report.staleIfErrorAge == nil, "must-revalidate serves nothing on error")
        }
        if report.onlyIfCached {
            Fuzzer.require(
                serves || report.decision == "gatewayTimeout", "only-if-cached never sends: \(report.decision)")
        }
        if report.decision == "serveFresh" {
            Fuzzer.require(report.currentAge < report.lifetime, "fresh means younger than the lifetime")
        }
        if report.isStored {
            Fuzzer.require(report.variantMatchesOwnRequest, "a stored response matches the request that brought it")
            Fuzzer.require(report.selfRevalidationApplies, "a 304 with the stored fields applies to them")
            Fuzzer.require(report.mergeKeptContentLength, "a 304 never changes Content-Length")
        }
        Fuzzer.require(
            report.invalidatedKeys.first == report.targetKey && report.invalidatedKeys.count <= 3,
            "invalidation names the target first and at most three keys: \(report.invalidatedKeys)")
    }
}
