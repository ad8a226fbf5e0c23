import Foundation
import SimpleNetworking
import Testing

/// One case of the http-state suite: the `Set-Cookie` fields a response to `http://home.example.org:8888/
/// cookie-parser?NAME` carries, and the `Cookie` header a user agent then sends to the result URL.
struct HTTPStateCase: Sendable, CustomTestStringConvertible {
    var name: String
    var fields: [String]
    var resultURL: String
    var want: String

    var testDescription: String { name }

    /// The cases of `Fixtures/http-state-parser.txt`.
    static let all: [HTTPStateCase] = {
        guard let url = Bundle.module.url(forResource: "Fixtures/http-state-parser", withExtension: "txt"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [] }
        var cases: [HTTPStateCase] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            if line.hasPrefix("== ") {
                let name = String(line.dropFirst(3))
                cases.append(
                    HTTPStateCase(
                        name: name, fields: [],
                        resultURL: "http://home.example.org:8888/cookie-parser-result?" + name, want: ""))
            } else if line.hasPrefix("set: ") {
                cases[cases.count - 1].fields.append(unescaped(line.dropFirst(5)))
            } else if line.hasPrefix("to: ") {
                let target = String(line.dropFirst(4))
                cases[cases.count - 1].resultURL =
                    target.hasPrefix("/") ? "http://home.example.org:8888" + target : target
            } else if line.hasPrefix("want: ") {
                cases[cases.count - 1].want = unescaped(line.dropFirst(6))
            }
        }
        return cases
    }()

    /// `\\` is a backslash and `\xHH` a control character.
    private static func unescaped(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = input.first else {
                bytes.append(byte)
                continue
            }
            if next == UInt8(ascii: "\\") {
                bytes.append(next)
                input = input.dropFirst()
            } else if next == UInt8(ascii: "x"), input.count >= 3,
                let value = UInt8(String(decoding: input.dropFirst().prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                input = input.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `Cookie` header a jar sends after receiving `fields` by this case's rules, or "" for none.
    func cookieHeader(receiving fields: [String]) throws -> String {
        // The suite's dates were written for a user agent of its time: its "future" dates lie after 2015.
        let jar = CookieJar(now: { Date(timeIntervalSince1970: 1_420_070_400) })  // 2015-01-01
        let request = try #require(URL(string: "http://home.example.org:8888/cookie-parser?" + name))
        jar.receive(setCookie: fields, from: request)
        return jar.cookieHeader(for: try #require(URL(string: resultURL))) ?? ""
    }
}

/// RFC 6265's public user-agent suite (http-state), run against the jar with the fields apart, as the AsyncHTTPClient
/// engine and `MockTransport` deliver them, and joined with ", " and split again, as the URLSession transport must.
@Suite("http-state: RFC 6265's user-agent test suite")
struct HTTPStateTests {
    /// Cases where the library follows RFC 6265bis or its own documented rules instead of the 2011 suite.
    static let deviations: [String: String] = [
        "disabled-chromium0022": "a field with NUL is ignored whole (RFC 6265bis), not cut at the NUL",
        "disabled-chromium0023": "a field with CR is ignored whole (RFC 6265bis), not cut at the CR",
        "disabled-path0029": "paths are compared as sent, percent-encoded: /f%6Fo is not /foo",
    ]

    /// Cases a joined `Set-Cookie` value cannot tell apart from another input; <doc:Cookies> lists
    /// the rule that decides them.
    static let ambiguousWhenJoined: [String: String] = {
        let merged = "a field without attributes and the next one read as one cookie whose value holds \", name=\""
        let split = "one field whose attribute value holds \", name=\" read as two fields"
        return [
            "0013": merged, "0014": merged, "0015": merged, "0016": merged, "0022": merged, "name0021": merged,
            "path0006": merged, "0018": split, "0019": split, "comma0007": split,
        ]
    }()

    @Test("The suite has all its cases")
    func count() {
        #expect(HTTPStateCase.all.count == 222)
    }

    @Test("Each case, with the fields apart", arguments: HTTPStateCase.all)
    func fieldsApart(testCase: HTTPStateCase) throws {
        let sent = try testCase.cookieHeader(receiving: testCase.fields)
        if let reason = Self.deviations[testCase.name] {
            #expect(sent != testCase.want, "a listed deviation now passes: \(reason)")
        } else {
            #expect(sent == testCase.want)
        }
    }

    @Test(
        "Each case, with the fields joined with \", \" and split as the URLSession transport does it",
        arguments: HTTPStateCase.all)
    func fieldsJoined(testCase: HTTPStateCase) throws {
        let split = SetCookieFields.split(testCase.fields.joined(separator: ", "))
        let sent = try testCase.cookieHeader(receiving: split)
        if let reason = Self.deviations[testCase.name] ?? Self.ambiguousWhenJoined[testCase.name] {
            #expect(sent != testCase.want, "a listed deviation now passes: \(reason)")
        } else {
            #expect(sent == testCase.want)
        }
    }
}
