import Foundation

/// What the cache rules need of a stored response: its status, header fields, the times of the exchange that
/// brought it (or last validated it) and its ``CacheVariant``. The body is the store's business.
package struct CachedResponseHead: Sendable, Equatable {
    /// The status code.
    package var status: Int
    /// The header fields as stored: those ``storedFields(of:)`` keeps, the received `Age` among them.
    package var headers: HTTPHeaders {
        didSet { fields = CacheResponseFields(headers, now: responseTime) }
    }
    /// When the request that brought (or last validated) the response was sent (`request_time`, RFC 9111 section
    /// 4.2.3).
    package var requestTime: Date
    /// When that response was received (`response_time`).
    package var responseTime: Date {
        didSet { fields = CacheResponseFields(headers, now: responseTime) }
    }
    /// The response's parsed fields, dates read relative to its receipt: parsed once, when the head is made or its
    /// ``headers`` or ``responseTime`` change, since every rule of a lookup reads them. Copies of the head share
    /// them (``CacheResponseFields`` is a class).
    package private(set) var fields: CacheResponseFields
    /// Which requests it may answer.
    package var variant: CacheVariant

    /// Creates a stored response head.
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields as stored.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    ///   - variant: Which requests it may answer.
    package init(status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date, variant: CacheVariant) {
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.variant = variant
        fields = CacheResponseFields(headers, now: responseTime)
    }

    /// The head to store for a received response (after ``CacheStorability`` allowed it): its fields less those
    /// section 3.1 keeps out, and the variant of the request that brought it; `nil` when its `Vary` holds `*`.
    /// - Parameters:
    ///   - status: The status code.
    ///   - responseHeaders: The response's header fields, as received.
    ///   - requestHeaders: The header fields of the request, as sent.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    package init?(
        status: Int, responseHeaders: HTTPHeaders, requestHeaders: HTTPHeaders, requestTime: Date, responseTime: Date
    ) {
        guard let variant = CacheVariant(responseHeaders: responseHeaders, requestHeaders: requestHeaders) else {
            return nil
        }
        self.init(
            status: status, headers: Self.storedFields(of: responseHeaders), requestTime: requestTime,
            responseTime: responseTime, variant: variant)
    }

    /// The fields that are never stored (RFC 9111 section 3.1): connection-specific ones (RFC 9110 section 7.6.1)
    /// and those of the proxy a cache uses. Lower case.
    package static let unstoredFieldNames: Set<String> = [
        "connection", "proxy-connection", "keep-alive", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// The header fields to store of a received response: all of them, unknown ones included, except
    /// ``unstoredFieldNames`` and the fields the `Connection` field names. The received `Age` is kept: it is the
    /// response's `age_value`. (The `Age` a cache sends when it serves a stored response is computed then, never
    /// stored.)
    /// - Parameter headers: The response's header fields, as received.
    /// - Returns: The fields to store, in their order.
    package static func storedFields(of headers: HTTPHeaders) -> HTTPHeaders {
        let excluded = unstoredFieldNames.union(connectionOptions(headers))
        return HTTPHeaders(headers.fields.filter { !excluded.contains($0.name.lowercased()) })
    }

    /// The field names a `Connection` field lists, lower case.
    static func connectionOptions(_ headers: HTTPHeaders) -> Set<String> {
        guard headers.contains("Connection") else { return [] }
        return Set(
            headers.values(for: "Connection").flatMap { $0.split(separator: ",") }.map {
                $0.withoutSurroundingSpacesAndTabs.lowercased()
            })
    }
}
