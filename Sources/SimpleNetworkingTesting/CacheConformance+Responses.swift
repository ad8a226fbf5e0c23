import Foundation
import SimpleNetworking

/// The response side: the suite's `conditional-etag` / `conditional-lm` (generated), `update304`, `cc-response`,
/// `other`, `pragma` (response) and `status` cases.
extension CacheConformance {
    static let validationCases: [Case] = [
        reuse(
            "conditional-etag-strong-generate", response: [("Cache-Control", "max-age=2"), ("ETag", "\"abcdef\"")],
            noneMatch("\"abcdef\"")),
        reuse(
            "conditional-etag-weak-generate-weak",
            response: [("Cache-Control", "max-age=2"), ("ETag", "W/\"abcdef\"")],
            noneMatch("W/\"abcdef\"")),
        reuse(
            "conditional-lm-stale", response: [("Cache-Control", "max-age=2"), ("Last-Modified", .date(-3000))],
            modifiedSince(-3000)),
        reuse(
            "conditional-etag-and-lm",
            response: [("Cache-Control", "max-age=2"), ("ETag", "\"v1\""), ("Last-Modified", .date(-3000))],
            .revalidated([("If-None-Match", "\"v1\""), ("If-Modified-Since", .date(-3000))])),
        reuse(
            "conditional-etag-vary-headers", firstRequest: [("Abc", "123")],
            response: [("Expires", .date(1)), ("ETag", "\"abcdef\""), ("Date", .date(0)), ("Vary", "Abc")],
            request: [("Abc", "123")], noneMatch("\"abcdef\"")),
        updated("304-etag-update-response-Cache-Control", validator: ("ETag", "\"abcdef\"")),
        updated("304-lm-update-response-Cache-Control", validator: ("Last-Modified", .date(-3000))),
        // Ours: a 304 that says no-store answers with the stored body, then nothing is stored any more.
        Case(
            "304-no-store-removes",
            steps: [
                Step(
                    response: ServerResponse(fields: [("Cache-Control", "max-age=1"), ("ETag", "\"a\"")]),
                    sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                Step(
                    wait: 3,
                    response: ServerResponse(status: 304, fields: [("ETag", "\"a\""), ("Cache-Control", "no-store")]),
                    sending: .sent(conditions: [("If-None-Match", "\"a\"")]),
                    answer: .response(.revalidated, status: 200, bodyOfStep: 1)),
                Step(sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 3)),
            ]),
    ]

    /// A `304` updates the stored response (RFC 9111 section 3.2): stored stale with `Test-Header: A`, revalidated 3 s
    /// later by a `304` that makes it fresh for an hour with `Test-Header: B`; 3 s after that it answers fresh, with
    /// the new field.
    private static func updated(_ id: String, validator: (name: String, value: FieldValue)) -> Case {
        let condition = validator.name == "ETag" ? "If-None-Match" : "If-Modified-Since"
        return Case(
            id,
            steps: [
                Step(
                    response: ServerResponse(fields: [("Cache-Control", "max-age=1"), ("Test-Header", "A"), validator]),
                    sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                Step(
                    wait: 3,
                    response: ServerResponse(
                        status: 304, fields: [("Cache-Control", "max-age=3600"), ("Test-Header", "B"), validator]),
                    sending: .sent(conditions: [(condition, validator.value)]),
                    answer: .response(.revalidated, status: 200, bodyOfStep: 1), responseFields: [("Test-Header", "B")]),
                Step(
                    wait: 3, sending: .notSent, answer: .response(.cache, status: 200, bodyOfStep: 1), age: 3,
                    responseFields: [("Test-Header", "B"), ("Cache-Control", "max-age=3600")]),
            ])
    }

    static let responseDirectiveCases: [Case] = [
        reuse("cc-resp-private-private", response: [("Cache-Control", "private, max-age=3600")], .fresh),
        reuse("cc-resp-no-store", response: [("Cache-Control", "no-store")], .fetched),
        reuse("cc-resp-no-store-case-insensitive", response: [("Cache-Control", "No-StOrE")], .fetched),
        reuse(
            "cc-resp-no-store-fresh",
            response: [("Cache-Control", "max-age=10000, no-store"), ("Expires", .date(10000)), ("Date", .date(0))],
            .fetched),
        // no-cache without a validator could never be reused: not stored.
        reuse(
            "cc-resp-no-cache",
            response: [("Cache-Control", "max-age=10000, no-cache"), ("Expires", .date(10000)), ("Date", .date(0))],
            .fetched),
        reuse(
            "cc-resp-no-cache-revalidate", response: [("Cache-Control", "no-cache"), ("ETag", "\"abcd\"")],
            noneMatch("\"abcd\"")),
        reuse(
            "cc-resp-no-cache-revalidate-fresh",
            response: [("Cache-Control", "max-age=10000, no-cache"), ("ETag", "\"abcd\"")], noneMatch("\"abcd\"")),
        reuse(
            "cc-resp-must-revalidate-fresh",
            response: [("Cache-Control", "max-age=10000, must-revalidate"), ("ETag", "\"abcd\"")], .fresh),
        reuse(
            "cc-resp-must-revalidate-stale",
            response: [("Cache-Control", "max-age=2, must-revalidate"), ("ETag", "\"abcd\"")], noneMatch("\"abcd\"")),
        // A reload (max-age=0) does not revalidate a fresh immutable response (RFC 8246), but a stale one it does.
        reuse(
            "cc-resp-immutable-fresh", response: [("Cache-Control", "max-age=10000, immutable"), ("ETag", "\"abcd\"")],
            request: [("Cache-Control", "max-age=0")], .fresh),
        reuse(
            "cc-resp-immutable-stale", response: [("Cache-Control", "max-age=2, immutable"), ("ETag", "\"abcd\"")],
            request: [("Cache-Control", "max-age=0")], noneMatch("\"abcd\"")),
        reuse(
            "pragma-response-no-cache", response: [("Cache-Control", "max-age=3600"), ("Pragma", "no-cache")], .fresh),
        reuse(
            "other-set-cookie", response: [("Cache-Control", "max-age=100000"), ("Set-Cookie", "a=b")], .fresh),
        reuse(
            "other-fresh-content-disposition-attachment",
            response: [
                ("Cache-Control", "max-age=100000"), ("Content-Disposition", "attachment; filename=example.txt"),
            ],
            .fresh),
    ]

    /// Statuses with explicit freshness, fresh and stale: any final status but `206` and `304` is stored; and the
    /// methods whose responses are not.
    static let statusCases: [Case] =
        [200, 203, 204, 400, 404, 410, 500, 502, 503, 504].flatMap { status in
            [
                reuse(
                    "status-\(status)-fresh", status: status, response: [("Cache-Control", "max-age=100000")], .fresh),
                reuse(
                    "status-\(status)-stale", status: status,
                    response: [("Expires", .date(-5000)), ("Last-Modified", .date(-100_000)), ("Date", .date(0))],
                    modifiedSince(-100_000)),
            ]
        }
        + [
            reuse(
                "partial-206-not-stored", status: 206,
                response: [("Cache-Control", "max-age=3600"), ("Content-Range", "bytes 0-9/20")], .fetched),
            // This cache stores GET responses only.
            Case(
                "method-POST",
                steps: [
                    Step(
                        method: "POST",
                        response: ServerResponse(fields: [
                            ("Cache-Control", "max-age=3600"), ("Content-Location", .text(path)),
                        ]),
                        sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                    Step(wait: 3, sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 2)),
                ]),
            Case(
                "method-HEAD",
                steps: [
                    Step(
                        method: "HEAD", response: ServerResponse(fields: [("Cache-Control", "max-age=3600")]),
                        sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                    Step(wait: 3, sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 2)),
                ]),
        ]
}
