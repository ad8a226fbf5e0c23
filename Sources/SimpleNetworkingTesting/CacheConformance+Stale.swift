import Foundation
import SimpleNetworking

/// Serving stale responses: `stale-while-revalidate` (RFC 5861 section 3) and `stale-if-error` (RFC 5861 section 4),
/// the suite's `stale` cases and ours.
extension CacheConformance {
    static let staleCases: [Case] = staleWhileRevalidateCases + staleIfErrorCases

    static let staleWhileRevalidateCases: [Case] = [
        // Stale at once from storage, revalidated in the background; the 304 makes it fresh for the next request.
        revalidatedInBackground(
            "stale-while-revalidate",
            by: ServerResponse(status: 304, fields: [("ETag", "\"abc\""), ("Cache-Control", "max-age=100")]),
            then: Step(
                sending: .notSent, answer: .response(.cache, status: 200, bodyOfStep: 1),
                responseFields: [("Cache-Control", "max-age=100")])),
        // The same, and the server sends a new response instead of a 304: it replaces the stored one, which the next
        // request gets.
        revalidatedInBackground(
            "stale-while-revalidate-replaced",
            by: ServerResponse(fields: [("ETag", "\"def\""), ("Cache-Control", "max-age=100")]),
            then: Step(
                sending: .notSent, answer: .response(.cache, status: 200, bodyOfStep: 2),
                responseFields: [("ETag", "\"def\"")])),
        reuse(
            "stale-while-revalidate-window-passed",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=4"), ("ETag", "\"abc\"")], after: 6,
            noneMatch("\"abc\"")),
        reuse(
            "stale-while-revalidate-fresh", response: [("Cache-Control", "max-age=60, stale-while-revalidate=60")],
            .fresh),
        reuse(
            "stale-while-revalidate-must-revalidate",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60, must-revalidate"), ("ETag", "\"a\"")],
            noneMatch("\"a\"")),
        reuse(
            "stale-while-revalidate-request-max-age",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "max-age=2")], noneMatch("\"a\"")),
        // only-if-cached never reaches the network, not even in the background.
        reuse(
            "stale-while-revalidate-only-if-cached",
            response: [("Cache-Control", "max-age=1, stale-while-revalidate=60"), ("ETag", "\"a\"")],
            request: [("Cache-Control", "only-if-cached")], .stale),
    ]

    /// A response stale after a second but within `stale-while-revalidate`, answered from storage 3 s later while
    /// its revalidation goes out in the background and gets `answer`; then the step `next`.
    private static func revalidatedInBackground(_ id: String, by answer: ServerResponse, then next: Step) -> Case {
        Case(
            id,
            steps: [
                Step(
                    response: ServerResponse(
                        fields: [("Cache-Control", "max-age=1, stale-while-revalidate=3600"), ("ETag", "\"abc\"")]),
                    sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                Step(
                    wait: 3, response: answer, sending: .sentInBackground(conditions: [("If-None-Match", "\"abc\"")]),
                    answer: .response(.cache, status: 200, bodyOfStep: 1), age: 3),
                next,
            ])
    }

    /// A stale response with `stale-if-error=60` answers when its revalidation fails with a transport error or a
    /// `500`, `502`, `503` or `504`, within the window; other failures reach the client.
    static let staleIfErrorCases: [Case] =
        [
            failedRevalidation("stale-sie-close", .closed, .response(.cache, status: 200, bodyOfStep: 1)),
            failedRevalidation(
                "stale-sie-503", ServerResponse(status: 503), .response(.cache, status: 200, bodyOfStep: 1)),
        ]
        + [500, 502, 504].map { status in
            failedRevalidation(
                "stale-sie-\(status)", ServerResponse(status: status), .response(.cache, status: 200, bodyOfStep: 1))
        }
        + [
            failedRevalidation(
                "stale-sie-501", ServerResponse(status: 501), .response(.network, status: 501, bodyOfStep: 2)),
            failedRevalidation(
                "stale-sie-window-passed", after: 62, ServerResponse(status: 503),
                .response(.network, status: 503, bodyOfStep: 2)),
            failedRevalidation(
                "stale-sie-without-validator", tag: nil, ServerResponse(status: 503),
                .response(.cache, status: 200, bodyOfStep: 1)),
            // Without permission a failure is a failure.
            failedRevalidation(
                "stale-close", cacheControl: "max-age=2", .closed, .failure),
            failedRevalidation(
                "stale-503", cacheControl: "max-age=2", ServerResponse(status: 503),
                .response(.network, status: 503, bodyOfStep: 2)),
            failedRevalidation(
                "stale-close-must-revalidate", cacheControl: "max-age=2, must-revalidate, stale-if-error=60", .closed,
                .failure),
            // The client may give the permission too.
            failedRevalidation(
                "stale-sie-request", cacheControl: "max-age=2", request: [("Cache-Control", "stale-if-error=30")],
                .closed, .response(.cache, status: 200, bodyOfStep: 1)),
        ]

    /// Stored with `cacheControl` (and `ETag: tag`), asked for again `after` seconds later with `request`: the
    /// revalidation gets `failure` from the server, and the client gets `answer`.
    private static func failedRevalidation(
        _ id: String, cacheControl: String = "max-age=2, stale-if-error=60", tag: String? = "\"e\"",
        request: Fields = [], after: TimeInterval = 3, _ failure: ServerResponse, _ answer: Answer
    ) -> Case {
        let validator: Fields = tag.map { [("ETag", .text($0))] } ?? []
        let conditions: Fields = tag.map { [("If-None-Match", .text($0))] } ?? []
        return Case(
            id,
            steps: [
                Step(
                    response: ServerResponse(fields: [("Cache-Control", .text(cacheControl))] + validator),
                    sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 1)),
                Step(
                    wait: after, fields: request, response: failure, sending: .sent(conditions: conditions),
                    answer: answer),
            ])
    }
}
