import Foundation
import FuzzHarness
import SimpleNetworking
import SimpleNetworkingTesting

/// Header names and values, and a method, from any bytes, set on a request (and on the client's default headers)
/// and sent through a `MockTransport`.
///
/// Invariant: no trap; either the request is refused with `invalidRequest` or `invalidURL` and nothing reaches the
/// transport, or what reaches it has a token method, token header names, values without CR, LF, NUL or another
/// control character but tab, and no framing or connection header (`Content-Length`, `Transfer-Encoding`, `Host`
/// unless allowed, ...). A request whose method, names and values all pass those rules is sent, with each header
/// it set carrying the last value set.
///
/// Input: selector bits: 0 allows a caller's `Host` (`Configuration.allowsHostHeader`), 1 puts every second header
/// in the client's default headers, 2 adds a one-byte body. Then fields separated by `0xFF`: the method, then header
/// names and values in pairs.
@main
enum FuzzHeaders: FuzzTarget {
    static func check(_ input: FuzzInput) {
        var fields = input.fields[...]
        let method = HTTPMethod(rawValue: fields.popFirst() ?? "")
        var headers: [(name: String, value: String, isDefault: Bool)] = []
        while let name = fields.popFirst(), let value = fields.popFirst() {
            headers.append((name, value, input.flag(1) && headers.count % 2 == 1))
        }
        let allowsHost = input.flag(0)
        let withBody = input.flag(2)

        var configuration = SimpleNetworking.Configuration()
        configuration.allowsHostHeader = allowsHost
        let transport = MockTransport()
        transport.route { _ in .status(204) }
        let client = SimpleNetworking(
            baseURL: Fuzzer.exampleBaseURL, transport: transport, configuration: configuration)
        let request = client.request(method, "/items")
        for header in headers {
            if header.isDefault {
                client.updateDefaultHeaders { $0.add(name: header.name, value: header.value) }
            } else {
                request.header(header.name, header.value)
            }
        }
        if withBody { request.body(Data([0x2A]), contentType: nil) }

        let outcome = Fuzzer.wait { () -> SimpleNetworkingError? in
            do throws(SimpleNetworkingError) {
                _ = try await request.response()
                return nil
            } catch {
                return error
            }
        }
        let sent = transport.requests
        let allPass =
            HTTPGrammar.isToken(method.rawValue)
            && headers.allSatisfy { isAllowed(name: $0.name, value: $0.value, allowsHost: allowsHost) }
            && !(withBody && (method == .get || method == .head))
        if let error = outcome {
            switch error {
            case .invalidRequest, .invalidURL: break
            default: Fuzzer.require(false, "a request is refused only as invalid, not \(error)")
            }
            Fuzzer.require(sent.isEmpty, "a refused request never reaches the transport")
            Fuzzer.require(!allPass, "a request whose method and headers follow the rules is sent: \(error)")
            return
        }
        Fuzzer.require(sent.count == 1, "one request reaches the transport, not \(sent.count)")
        for request in sent {
            Fuzzer.require(HTTPGrammar.isToken(request.method.rawValue), "the method that is sent is a token")
            for field in request.headers {
                Fuzzer.require(
                    isAllowed(name: field.name, value: field.value, allowsHost: allowsHost),
                    "only token names, values without control characters and no framing header reach the "
                        + "transport (\(field.name.utf8.count)-byte name)")
            }
            // Each header set on the request arrives with the last value set for its name.
            var last: [String: String] = [:]
            for header in headers where !header.isDefault { last[header.name.lowercased()] = header.value }
            for (name, value) in last where name != "cookie" {
                Fuzzer.require(
                    request.headers.values(for: name) == [value], "a header set on the request arrives as set")
            }
        }
    }

    static func isAllowed(name: String, value: String, allowsHost: Bool) -> Bool {
        let lowered = name.lowercased()
        let isFraming = HTTPGrammar.framingHeaderNames.contains(lowered) && !(allowsHost && lowered == "host")
        return HTTPGrammar.isToken(name) && HTTPGrammar.isFieldValue(value) && !isFraming
    }
}
