import Foundation
import SimpleNetworking

/// Invalidation by unsafe methods (RFC 9111 section 4.4), the suite's `invalidation` cases: a successful `POST`,
/// `PUT`, `PATCH` or `DELETE` removes what is stored for its URL and for the same-origin URLs its `Location` and
/// `Content-Location` name; a safe method or a failed one removes nothing.
extension CacheConformance {
    /// Another URL of the same origin, named by `Location` or `Content-Location`.
    static let otherPath = "/other"

    static let invalidationCases: [Case] =
        ["POST", "PUT", "DELETE", "PATCH"].map { method in
            invalidation("invalidate-\(method)", method: method, invalidates: true)
        }
        + [
            invalidation("invalidate-POST-failed", method: "POST", status: 500, invalidates: false),
            invalidation("invalidate-POST-not-found", method: "POST", status: 404, invalidates: false),
            invalidation("invalidate-HEAD", method: "HEAD", invalidates: false),
            invalidation("invalidate-OPTIONS", method: "OPTIONS", invalidates: false),
            invalidation("invalidate-POST-location", method: "POST", field: "Location", invalidates: true),
            invalidation("invalidate-PUT-location", method: "PUT", field: "Location", invalidates: true),
            invalidation("invalidate-POST-cl", method: "POST", field: "Content-Location", invalidates: true),
            invalidation("invalidate-DELETE-cl", method: "DELETE", field: "Content-Location", invalidates: true),
            invalidation("invalidate-GET-location", method: "GET", field: "Location", invalidates: false),
        ]

    /// A response stored fresh for the URL `method` will name (the request's own, or the one `field` names), then
    /// `method` sent to ``path`` and answered `status` (with `field` naming ``otherPath``), then the stored URL asked
    /// for again: from the server when `invalidates`, else from storage.
    private static func invalidation(
        _ id: String, method: String, status: Int = 200, field: String? = nil, invalidates: Bool
    ) -> Case {
        let stored = field == nil ? path : otherPath
        let named: Fields = field.map { [(name: $0, value: .text(otherPath))] } ?? []
        let fresh: Fields = [("Cache-Control", "max-age=3600")]
        let changing = Step(
            wait: 1, method: method, response: ServerResponse(status: status, fields: named), sending: .sent,
            answer: .response(.network, status: status, bodyOfStep: 2))
        let again = Step(
            wait: 1, path: stored, sending: invalidates ? .sent : .notSent,
            answer: .response(invalidates ? .network : .cache, status: 200, bodyOfStep: invalidates ? 3 : 1))
        return Case(
            id,
            steps: [
                Step(
                    path: stored, response: ServerResponse(fields: fresh), sending: .sent,
                    answer: .response(.network, status: 200, bodyOfStep: 1)),
                changing, again,
            ])
    }
}
