import Foundation
import FuzzHarness
import SimpleNetworking
import SimpleNetworkingTesting

/// `PathTemplate` (`placeholders()`, `path(with:)`) and a request built from it, with query parameters and a form
/// body, sent through a `MockTransport` under the base URL `https://api.example.com/v1`.
///
/// Invariant: no trap; a refusal is `SimpleNetworkingError.invalidURL` and sends nothing. Otherwise each value
/// becomes one segment of unreserved characters and `%XX` escapes that percent-decodes back to the value (only an
/// empty value, or one that is or holds a `.` or `..` segment between slashes or backslashes, which a server that
/// decodes `%2F` would read as one, is refused); the client refuses the template, when the request runs, whenever
/// `path(with:)` does; the request that reaches the transport stays on the base URL's origin and under its path, and
/// carries each value's segment (when the template has no dot segment to remove it); and the query parameters and form
/// fields, decoded with Foundation's `URLComponents`, give back the pairs that were added.
///
/// Input: selector bits: 2 sends a POST with the pairs as a form body too (else a GET), 3 adds a value for a
/// placeholder the template does not have. Then fields separated by `0xFF`: the template, one value per distinct
/// placeholder in order, the extra name (bit 3), then query names and values in pairs.
@main
enum FuzzPathTemplate: FuzzTarget {
    static func check(_ input: FuzzInput) {
        var fields = input.fields[...]
        let template = PathTemplate(fields.popFirst() ?? "")
        var names: [String] = []
        do {
            names = try template.placeholders()
        } catch {
            requireInvalidURL(error, "placeholders()")
        }
        var values: [String: String] = [:]
        for name in names where values[name] == nil { values[name] = fields.popFirst() ?? "" }
        if input.flag(3), let extra = fields.popFirst(), values[extra] == nil { values[extra] = "x" }
        var pairs: [(name: String, value: String)] = []
        while let name = fields.popFirst(), let value = fields.popFirst() { pairs.append((name, value)) }

        var path: String?
        do {
            path = try template.path(with: values)
        } catch {
            requireInvalidURL(error, "path(with:)")
        }
        for value in Set(values.values) { requireOneSegment(value) }

        let isPost = input.flag(2)
        let transport = MockTransport()
        transport.route { _ in .status(204) }
        let client = SimpleNetworking(baseURL: Fuzzer.exampleBaseURL, transport: transport)
        // A template the client cannot fill is refused when the request runs, with nothing sent.
        let request = client.request(isPost ? .post : .get, template.text, path: values)
        for pair in pairs { request.query(pair.name, pair.value) }
        let form = Dictionary(pairs, uniquingKeysWith: { _, last in last })
        if isPost { request.body(form: form) }

        let outcome = Fuzzer.wait { () -> SimpleNetworkingError? in
            do throws(SimpleNetworkingError) {
                _ = try await request.response()
                return nil
            } catch {
                return error
            }
        }
        let sent = transport.requests
        if path == nil {
            Fuzzer.require(outcome != nil, "the client refuses a template exactly when path(with:) does")
        }
        if let error = outcome {
            // The literal text can still hold a dot segment that climbs out, or name another origin.
            requireInvalidURL(error, "sending the request")
            Fuzzer.require(sent.isEmpty, "a refused request never reaches the transport")
            return
        }
        Fuzzer.require(sent.count == 1, "one request reaches the transport, not \(sent.count)")
        guard let request = sent.first else { return }
        let query = requireUnderBaseURL(request.url, carrying: template.text.contains(".") ? [] : Array(values.values))
        requireQueryItems(query, end: pairs)
        if isPost { requireForm(request, holds: form) }
    }

    /// A value alone in a template: one segment that decodes back to it, or refused when empty or holding a dot
    /// segment.
    static func requireOneSegment(_ value: String) {
        let pieces = value.utf8.split(omittingEmptySubsequences: false) {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\")
        }
        let refusable = value.isEmpty || pieces.contains { $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }
        do {
            let segment = try PathTemplate("{value}").path(with: ["value": value])
            Fuzzer.require(!refusable, "an empty value, or one that holds a dot segment, is refused")
            Fuzzer.require(
                HTTPGrammar.isPercentEncoded(segment),
                "a value is sent as unreserved characters and %XX escapes, not \(segment)")
            Fuzzer.require(
                HTTPGrammar.percentDecoded(segment[...]) == Array(value.utf8),
                "a value's segment percent-decodes back to the value (\(segment))")
        } catch {
            Fuzzer.require(refusable, "only an empty value, or one that holds a dot segment, is refused: \(error)")
            requireInvalidURL(error, "path(with:) for one value")
        }
    }

    /// Checks the origin and the path of `url`, and that each of `values` appears encoded in it.
    /// - Returns: The URL's percent-encoded query.
    static func requireUnderBaseURL(_ url: URL, carrying values: [String]) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            Fuzzer.require(false, "the request's URL parses: \(url.absoluteString)")
            return ""
        }
        Fuzzer.require(
            components.scheme == "https" && components.host == "api.example.com" && components.port == nil
                && components.user == nil && components.password == nil && components.fragment == nil,
            "the request stays on the base URL's origin: \(url.absoluteString)")
        let path = components.percentEncodedPath
        Fuzzer.require(path == "/v1" || path.hasPrefix("/v1/"), "the request stays under the base URL's path: \(path)")
        let query = components.percentEncodedQuery ?? ""
        for value in values {
            guard let segment = try? PathTemplate("{value}").path(with: ["value": value]) else { continue }
            Fuzzer.require(
                (path + "?" + query).contains(segment), "the request carries each value's segment (\(segment))")
        }
        return query
    }

    /// The last query parameters, decoded by `URLComponents`, are `pairs`.
    static func requireQueryItems(_ query: String, end pairs: [(name: String, value: String)]) {
        guard !pairs.isEmpty else { return }
        let pieces = query.split(separator: "&", omittingEmptySubsequences: false).suffix(pairs.count)
        let decoded = decodedPairs(pieces.joined(separator: "&"), what: "query parameters")
        Fuzzer.require(
            decoded.count == pairs.count && zip(decoded, pairs).allSatisfy { $0 == $1 },
            "query parameters decode back to the pairs added (\(decoded.count) of \(pairs.count))")
    }

    /// The body is `application/x-www-form-urlencoded` text that decodes to `form`, in name order.
    static func requireForm(_ request: HTTPRequest, holds form: [String: String]) {
        let contentType = request.headers["Content-Type"] ?? ""
        Fuzzer.require(contentType.hasPrefix("application/x-www-form-urlencoded"), "a form is sent as a form")
        let body = String(decoding: request.body ?? Data(), as: UTF8.self)
        let decoded = decodedPairs(body, what: "form fields")
        let expected = form.sorted { $0.key < $1.key }
        Fuzzer.require(
            decoded.count == expected.count && zip(decoded, expected).allSatisfy { $0 == ($1.key, $1.value) },
            "form fields decode back to the pairs set (\(decoded.count) of \(expected.count))")
    }

    /// `text` as name-value pairs, checked to be percent-encoded first (Foundation traps on some invalid text).
    static func decodedPairs(_ text: String, what: String) -> [(String, String)] {
        guard !text.isEmpty else { return [] }
        let encoded = HTTPGrammar.isPercentEncoded(text, allowing: [UInt8(ascii: "&"), UInt8(ascii: "=")])
        Fuzzer.require(encoded, "\(what) are sent as unreserved characters and %XX escapes")
        var components = URLComponents()
        components.percentEncodedQuery = text
        return (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    static func requireInvalidURL(_ error: SimpleNetworkingError, _ what: String) {
        guard case .invalidURL = error else {
            Fuzzer.require(false, "\(what) refuses only with invalidURL, not \(error)")
            return
        }
    }
}
