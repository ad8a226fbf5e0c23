import Foundation
import SimpleNetworking

/// How the tables write the common shape of a case: a response stored for a first request, a second request some
/// seconds later, and what the cache does with it.
extension CacheConformance {
    /// What the cache does with the second request of a ``reuse(_:firstRequest:status:response:request:after:_:)``.
    enum Reuse {
        /// The stored response answers, fresh; nothing is sent.
        case fresh
        /// The stored response answers, stale, as the request allows; nothing is sent.
        case stale
        /// The request goes out with these conditional fields; the server answers `304` (with the `ETag` asked
        /// for, if any) and the client gets the stored response, revalidated.
        case revalidated(Fields)
        /// The request goes out without conditional fields (nothing stored, or nothing usable); the server's new
        /// `200` answers.
        case fetched
        /// `504` from the cache, without a request: `only-if-cached` and nothing usable stored.
        case gatewayTimeout
    }

    /// A two-step case: `response` stored for the first request, the second sent `after` seconds later.
    static func reuse(
        _ id: String, firstRequest: Fields = [], status: Int = 200, response: Fields, request: Fields = [],
        after: TimeInterval = 3, _ reuse: Reuse
    ) -> Case {
        let first = Step(
            fields: firstRequest, response: ServerResponse(status: status, fields: response), sending: .sent,
            answer: .response(.network, status: status, bodyOfStep: 1))
        return Case(id, steps: [first, second(after: after, request: request, status: status, reuse)])
    }

    /// The second step of a ``reuse(_:firstRequest:status:response:request:after:_:)`` case.
    static func second(after wait: TimeInterval, request: Fields, status: Int, _ reuse: Reuse) -> Step {
        switch reuse {
        case .fresh, .stale:
            return Step(
                wait: wait, fields: request, sending: .notSent, answer: .response(.cache, status: status, bodyOfStep: 1)
            )
        case .revalidated(let conditions):
            let tag = conditions.first { $0.name == "If-None-Match" }.map { [(name: "ETag", value: $0.value)] } ?? []
            return Step(
                wait: wait, fields: request, response: ServerResponse(status: 304, fields: tag),
                sending: .sent(conditions: conditions), answer: .response(.revalidated, status: status, bodyOfStep: 1))
        case .fetched:
            return Step(
                wait: wait, fields: request, sending: .sent, answer: .response(.network, status: 200, bodyOfStep: 2))
        case .gatewayTimeout:
            return Step(
                wait: wait, fields: request, sending: .notSent, answer: .response(.cache, status: 504, bodyOfStep: nil))
        }
    }

    /// Revalidation with `If-Modified-Since` at `seconds` from the start of the case.
    static func modifiedSince(_ seconds: TimeInterval) -> Reuse {
        .revalidated([("If-Modified-Since", .date(seconds))])
    }

    /// Revalidation with `If-None-Match: tag`.
    static func noneMatch(_ tag: String) -> Reuse {
        .revalidated([("If-None-Match", .text(tag))])
    }
}
