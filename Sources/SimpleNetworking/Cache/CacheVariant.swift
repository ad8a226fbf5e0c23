import Foundation

/// Which requests a stored response may answer besides its URL (RFC 9111 section 4.1): the request fields its
/// `Vary` nominates, and a fingerprint (``key``) of the values the request that brought it had for them.
///
/// A store keeps any number of variants per URL and compares ``key``s, or asks ``matches(_:)``. Two requests match
/// when each nominated field is absent from both, or present in both with the same value after normalising: field
/// lines of one name combined, list members split at commas, spaces and tabs around each member removed. Values are
/// compared as they are otherwise (no field-specific normalising, such as reordering `Accept-Language`). A `Vary`
/// with a member `*` never matches, so such a response has no variant and is never stored.
///
/// The request's `Authorization` is always part of the fingerprint, as if `Vary` named it: a response stored for one
/// set of credentials (or none) answers only requests with the same, so that a client shared by several users never
/// hands one the other's response. RFC 9111 section 3.5 lets a private cache store such responses; keying them by
/// the credentials keeps that safe. Only the digest is kept, never a credential.
package struct CacheVariant: Sendable, Hashable, Codable {
    /// The field names the stored response's `Vary` nominates: lower case, sorted, without repeats.
    package var fieldNames: [String]
    /// The secondary key a store compares: the SHA-256, in hexadecimal, of the request's normalised values of
    /// ``fieldNames`` and of its `Authorization`.
    package var key: String

    /// The variant of `requestHeaders` for the fields `fieldNames` nominates.
    /// - Parameters:
    ///   - fieldNames: The nominated field names, in any case and order.
    ///   - requestHeaders: The request's header fields.
    package init(fieldNames: [String], requestHeaders: HTTPHeaders) {
        self.fieldNames = Self.normalisedNames(fieldNames)
        key = Self.key(fieldNames: self.fieldNames, requestHeaders: requestHeaders)
    }

    /// A variant read back from storage: its nominated field names and the key stored with them, which is not
    /// computed again.
    /// - Parameters:
    ///   - fieldNames: The nominated field names, in any case and order.
    ///   - key: The stored ``key``.
    package init(fieldNames: [String], key: String) {
        self.fieldNames = Self.normalisedNames(fieldNames)
        self.key = key
    }

    /// Field names lower case, unique and sorted; none, most often, without a set.
    private static func normalisedNames(_ names: [String]) -> [String] {
        names.isEmpty ? [] : Array(Set(names.map { $0.lowercased() })).sorted()
    }

    /// The variant of a response to store, or `nil` when its `Vary` holds `*` (never stored nor matched).
    /// - Parameters:
    ///   - responseHeaders: The response's header fields.
    ///   - requestHeaders: The header fields of the request that brought it.
    package init?(responseHeaders: HTTPHeaders, requestHeaders: HTTPHeaders) {
        guard let names = Self.nominatedFieldNames(responseHeaders) else { return nil }
        self.init(fieldNames: names, requestHeaders: requestHeaders)
    }

    /// Whether a request may be answered by the stored response of this variant.
    /// - Parameter requestHeaders: The presented request's header fields.
    /// - Returns: `true` when its nominated fields and credentials match those of the stored one.
    package func matches(_ requestHeaders: HTTPHeaders) -> Bool {
        Self.key(fieldNames: fieldNames, requestHeaders: requestHeaders) == key
    }

    /// The field names all `Vary` lines of a response nominate, lower case, sorted and unique; `nil` when one
    /// member is `*`. Empty members are ignored.
    /// - Parameter responseHeaders: The response's header fields.
    /// - Returns: The names, or `nil` for `*`.
    package static func nominatedFieldNames(_ responseHeaders: HTTPHeaders) -> [String]? {
        let lines = responseHeaders.values(for: "Vary")
        // Most responses have no `Vary`: no set to make and sort.
        guard !lines.isEmpty else { return [] }
        var names: Set<String> = []
        for line in lines {
            for member in line.split(separator: ",") {
                let name = trimmed(member)
                if name == "*" { return nil }
                if !name.isEmpty { names.insert(name.lowercased()) }
            }
        }
        return names.sorted()
    }

    /// The value of field `name` in `headers` as variants compare it: every line combined, each comma-separated
    /// member without the spaces and tabs around it, joined with `,`; `nil` when the field is absent.
    /// - Parameters:
    ///   - name: The field name.
    ///   - headers: The request's header fields.
    /// - Returns: The normalised value, or `nil`.
    package static func normalisedValue(of name: String, in headers: HTTPHeaders) -> String? {
        let lines = headers.values(for: name)
        guard !lines.isEmpty else { return nil }
        return lines.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false)
            .map(trimmed).joined(separator: ",")
    }

    /// The digest of the nominated values and the credentials (``digest(fieldNames:requestHeaders:)``); for a
    /// response that nominates no field and a request without `Authorization`, the most common case, the same digest
    /// every time, made once (``anonymousKey``).
    private static func key(fieldNames: [String], requestHeaders: HTTPHeaders) -> String {
        if fieldNames.isEmpty, !requestHeaders.contains("Authorization") { return anonymousKey }
        return digest(fieldNames: fieldNames, requestHeaders: requestHeaders)
    }

    /// The key of every request when no field is nominated and there are no credentials.
    private static let anonymousKey = digest(fieldNames: [], requestHeaders: [:])

    /// The digest of the nominated values and the credentials, each part length-prefixed so that no two different
    /// requests encode alike.
    private static func digest(fieldNames: [String], requestHeaders: HTTPHeaders) -> String {
        var encoding: [UInt8] = []
        func append(_ name: String, _ value: String?) {
            appendPart(Array(name.utf8), to: &encoding)
            if let value {
                appendPart(Array(value.utf8), to: &encoding)
            } else {
                encoding.append(0xFF)  // absent: a length-prefixed part never starts with 0xFF
            }
        }
        for name in fieldNames { append(name, normalisedValue(of: name, in: requestHeaders)) }
        encoding.append(0xFE)  // the credentials, apart from the nominated fields
        append("authorization", normalisedValue(of: "Authorization", in: requestHeaders))
        return PortableSHA256.hexHash(encoding)
    }

    private static func appendPart(_ bytes: [UInt8], to encoding: inout [UInt8]) {
        let count = UInt32(truncatingIfNeeded: min(bytes.count, Int(UInt32.max >> 1)))
        encoding += [
            UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8),
            UInt8(truncatingIfNeeded: count),
        ]
        encoding += bytes
    }

    private static func trimmed(_ text: some StringProtocol) -> String {
        text.withoutSurroundingSpacesAndTabs
    }
}
