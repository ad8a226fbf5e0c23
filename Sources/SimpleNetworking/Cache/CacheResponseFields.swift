import Foundation

/// The fields of a response that the cache rules read, parsed once: its directives, dates, `Age` and validators.
///
/// Repeated or invalid values are read as RFC 9111 section 4.2.1 and the conformance suite's cases have them:
/// - `Expires` that is not one HTTP-date (`0`, another zone, a two-digit year in IMF form) is a time in the past,
///   and so are several `Expires` lines that disagree (section 5.3);
/// - `Age` is the first field line's first member (before any `,` or `;`) when it is delta-seconds, clamped to
///   2^31; otherwise there is none (a negative or fractional `Age` is ignored);
/// - `Date` and `Last-Modified` are the first field line's, when it is a date;
/// - the entity tag is the first `ETag` line's, as received (quoted or not), unless it holds a control character,
///   which could never be sent back in a header.
///
/// Immutable once read, and a class: a stored head's fields pass through every rule of a lookup, and a reference is
/// one count to keep where the values inside are a dozen (<doc:Performance>, "HTTP cache").
package final class CacheResponseFields: Sendable, Equatable {
    /// The `Expires` field.
    package enum Expires: Sendable, Equatable {
        /// No `Expires` field.
        case absent
        /// An `Expires` that is not one date: already expired (section 5.3).
        case invalid
        /// The date.
        case date(Date)
    }

    /// The response's `Cache-Control` directives.
    package let cacheControl: CacheControl
    /// The `Date` field, when it is a date.
    package let date: Date?
    /// The `Date` field's text, when it is a date: a validator of last resort (``CacheValidation``).
    package let dateText: String?
    /// The `Expires` field.
    package let expires: Expires
    /// The `Last-Modified` field, when it is a date.
    package let lastModified: Date?
    /// The `Last-Modified` field's text, when it is a date, sent back as it came in `If-Modified-Since`.
    package let lastModifiedText: String?
    /// The `Age` field in seconds (`age_value`, section 4.2.3), when valid.
    package let age: Int?
    /// The `ETag` field as received, when present and free of control characters.
    package let entityTag: String?

    /// Reads the fields from a response's header fields.
    /// - Parameters:
    ///   - headers: The response's header fields.
    ///   - now: The time the response was received, which places a two-digit year.
    package init(_ headers: HTTPHeaders, now: Date) {
        // One pass over the fields picks out the lines of every name read here (each head is read so once). A name
        // that may repeat keeps its first line apart, so that the usual single line makes no list.
        var cacheControlLine: String?
        var moreCacheControlLines: [String] = []
        var expiresText: String?
        var expiresAgree = true
        var dateLine: String?
        var lastModifiedLine: String?
        var ageLine: String?
        var entityTagLine: String?
        for field in headers.fields {
            let name = field.name
            switch name.utf8.count {
            case 3 where ageLine == nil && name.equalsIgnoringASCIICase("Age"): ageLine = field.value
            case 4 where dateLine == nil && name.equalsIgnoringASCIICase("Date"): dateLine = field.value
            case 4 where entityTagLine == nil && name.equalsIgnoringASCIICase("ETag"): entityTagLine = field.value
            case 7 where name.equalsIgnoringASCIICase("Expires"):
                let text = Self.trimmed(field.value)
                if let first = expiresText { expiresAgree = expiresAgree && text == first } else { expiresText = text }
            case 13 where name.equalsIgnoringASCIICase("Cache-Control"):
                if cacheControlLine == nil {
                    cacheControlLine = field.value
                } else {
                    moreCacheControlLines.append(field.value)
                }
            case 13 where lastModifiedLine == nil && name.equalsIgnoringASCIICase("Last-Modified"):
                lastModifiedLine = field.value
            default: break
            }
        }
        cacheControl = CacheControl(responseLine: cacheControlLine, then: moreCacheControlLines)
        date = dateLine.flatMap { CacheDate.parse($0, now: now) }
        dateText = date == nil ? nil : dateLine.map(Self.trimmed)
        // Several `Expires` lines that disagree are an invalid one (section 5.3).
        if let first = expiresText {
            expires = expiresAgree ? CacheDate.parse(first, now: now).map(Expires.date) ?? .invalid : .invalid
        } else {
            expires = .absent
        }
        let lastModified = Self.lastModified(line: lastModifiedLine, now: now)
        self.lastModified = lastModified.date
        lastModifiedText = lastModified.text
        age = ageLine.flatMap(Self.ageValue)
        entityTag = Self.entityTag(line: entityTagLine)
    }

    /// The `Last-Modified` field as ``lastModified`` and ``lastModifiedText`` read it.
    /// - Parameters:
    ///   - headers: A response's header fields.
    ///   - now: The time the response was received.
    /// - Returns: The date and its text, both `nil` when there is no such date.
    package static func lastModified(in headers: HTTPHeaders, now: Date) -> (date: Date?, text: String?) {
        lastModified(line: headers["Last-Modified"], now: now)
    }

    /// The first `Last-Modified` line, read as ``lastModified(in:now:)`` reads it.
    private static func lastModified(line: String?, now: Date) -> (date: Date?, text: String?) {
        guard let date = line.flatMap({ CacheDate.parse($0, now: now) }) else { return (nil, nil) }
        return (date, line.map(trimmed))
    }

    /// The `ETag` field as ``entityTag`` reads it.
    /// - Parameter headers: A response's header fields.
    /// - Returns: The entity tag, `nil` when absent or holding a control character.
    package static func entityTag(in headers: HTTPHeaders) -> String? {
        entityTag(line: headers["ETag"])
    }

    /// The first `ETag` line, read as ``entityTag(in:)`` reads it.
    private static func entityTag(line: String?) -> String? {
        line.map(trimmed).flatMap { tag in
            let isControl = { (byte: UInt8) in byte < 0x20 || byte == 0x7F }
            let hasControl =
                tag.utf8.withContiguousStorageIfAvailable { $0.contains(where: isControl) }
                ?? tag.utf8.contains(where: isControl)
            return tag.isEmpty || hasControl ? nil : tag
        }
    }

    /// Whether both read the same fields: the same object, or equal values.
    package static func == (lhs: CacheResponseFields, rhs: CacheResponseFields) -> Bool {
        lhs === rhs
            || (lhs.cacheControl == rhs.cacheControl && lhs.date == rhs.date && lhs.dateText == rhs.dateText
                && lhs.expires == rhs.expires && lhs.lastModified == rhs.lastModified
                && lhs.lastModifiedText == rhs.lastModifiedText && lhs.age == rhs.age
                && lhs.entityTag == rhs.entityTag)
    }

    /// Whether the response carries a validator a conditional request can name: an entity tag or a
    /// `Last-Modified` date.
    package var hasValidator: Bool { entityTag != nil || lastModifiedText != nil }

    /// The first member of an `Age` line as delta-seconds.
    private static func ageValue(_ line: String) -> Int? {
        let member = line.utf8.prefix { $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: ";") }
        return CacheControl.deltaSeconds(trimmed(String(decoding: member, as: UTF8.self)))
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: String) -> String {
        text.withoutSurroundingSpacesAndTabs
    }
}
