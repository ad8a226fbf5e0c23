import Foundation

/// A `304 (Not Modified)` merged into the stored response it validated (RFC 9111 sections 3.2 and 4.3.4).
///
/// **Which stored response it applies to** (section 4.3.4, for the one stored response that was validated): when the
/// `304` has a strong entity tag, the stored one must have the same strong tag; a weak tag must match the stored
/// tag ignoring weakness; with no tag, a `Last-Modified` must equal the stored one. A `304` with no validator at all
/// applies to the response it answers: the section selects a stored response then only when that one has no
/// validator either, but servers commonly leave validators out of a `304`, and the conditions came from this very
/// response, as OkHttp and browsers reason. A `304` that does not apply cannot be used: fetch again, unconditionally.
///
/// **How it updates** (section 3.2): each field of the `304` replaces all stored fields of its name, except:
/// - the fields never stored (``CachedResponseHead/unstoredFieldNames`` and those `Connection` lists);
/// - `Content-Length` (section 3.2), `Content-Encoding` (the stored content's coding cannot change by a `304`;
///   section 3.2 names it) and `Content-Range` (section 3.2);
/// - `Age`: the stored `Age` is dropped and the `304`'s, if any, taken instead, since the stored response's times
///   become those of the validation (its age is then the `304`'s);
/// - and when the `304` has no `Date`, the merged response gets the time it arrived as its `Date` (RFC 9110
///   section 6.6.1), so that the validation renews its apparent age.
package enum CacheRevalidation {
    /// What a `304` does to the stored response it answers.
    package enum Outcome: Sendable, Equatable {
        /// It applies: the stored response with its fields updated and the validation's times, to serve. `storable`
        /// is `false` when the updated response may no longer be stored (it now says `no-store`, say): serve it,
        /// and remove the stored one.
        case updated(CachedResponseHead, storable: Bool)
        /// It names another representation: it cannot be used.
        case notApplicable
    }

    /// The fields a `304` never updates, besides those never stored. Lower case.
    package static let fieldsKeptFromStorage: Set<String> = [
        "content-length", "content-encoding", "content-range", "age",
    ]

    /// ``fieldsKeptFromStorage`` and the fields never stored (``CachedResponseHead/unstoredFieldNames``): a list, to
    /// compare names with without lowering their case.
    private static let neverUpdatedFieldNames = Array(
        CachedResponseHead.unstoredFieldNames.union(fieldsKeptFromStorage))

    /// Merges a `304` into the stored response it validated.
    /// - Parameters:
    ///   - notModifiedHeaders: The `304`'s header fields.
    ///   - requestHeaders: The header fields of the request that was validated, which may change the variant.
    ///   - requestTime: When the validation request was sent.
    ///   - responseTime: When the `304` was received.
    ///   - stored: The stored response.
    /// - Returns: The updated response, or ``Outcome/notApplicable``.
    package static func merge(
        notModifiedHeaders: HTTPHeaders, requestHeaders: HTTPHeaders, requestTime: Date, responseTime: Date,
        into stored: CachedResponseHead
    ) -> Outcome {
        // Only the 304's validators are read here; the merged head reads the rest once.
        let notModifiedTag = CacheResponseFields.entityTag(in: notModifiedHeaders)
        let notModifiedDate = CacheResponseFields.lastModified(in: notModifiedHeaders, now: responseTime).date
        guard applies(entityTag: notModifiedTag, lastModified: notModifiedDate, to: stored.fields) else {
            return .notApplicable
        }
        let headers = updatedFields(stored: stored.headers, notModified: notModifiedHeaders, receivedAt: responseTime)
        // A 304 without `Vary` leaves the stored one: the variant is the stored one when the request matches it.
        let variant =
            !notModifiedHeaders.contains("Vary") && stored.variant.matches(requestHeaders)
            ? stored.variant : CacheVariant(responseHeaders: headers, requestHeaders: requestHeaders)
        let updated = CachedResponseHead(
            status: stored.status, headers: headers, requestTime: requestTime, responseTime: responseTime,
            variant: variant ?? stored.variant)
        let refusal = CacheStorability.refusal(method: .get, requestHeaders: requestHeaders, head: updated)
        return .updated(updated, storable: variant != nil && refusal == nil)
    }

    /// Whether a `304` with the given validators applies to a stored response with the given fields (see above).
    /// - Parameters:
    ///   - entityTag: The `304`'s entity tag (``CacheResponseFields/entityTag``).
    ///   - lastModified: The `304`'s `Last-Modified` date (``CacheResponseFields/lastModified``).
    ///   - stored: The stored response's fields.
    /// - Returns: `true` when the stored response is the one the `304` selects.
    package static func applies(entityTag: String?, lastModified: Date?, to stored: CacheResponseFields) -> Bool {
        if let tag = entityTag {
            guard let storedTag = stored.entityTag else { return false }
            if !isWeak(tag) && isWeak(storedTag) { return false }
            return opaqueTag(tag) == opaqueTag(storedTag)
        }
        if let lastModified { return stored.lastModified == lastModified }
        return true
    }

    /// The stored fields updated by a `304`'s (see above).
    /// - Parameters:
    ///   - stored: The stored response's fields.
    ///   - notModified: The `304`'s fields.
    ///   - receivedAt: When the `304` arrived: its `Date` when it has none.
    /// - Returns: The updated fields.
    package static func updatedFields(stored: HTTPHeaders, notModified: HTTPHeaders, receivedAt: Date) -> HTTPHeaders {
        let options = CachedResponseHead.connectionOptions(notModified)
        // The names the 304 updates, in the order they first appear, as first spelled. A 304 has few fields, and
        // names compared without case mostly differ in length: scans of short lists cost less than sets.
        var names: [String] = []
        names.reserveCapacity(notModified.count)
        var hasDate = false
        for field in notModified.fields {
            let name = field.name
            hasDate = hasDate || name.equalsIgnoringASCIICase("Date")
            guard !neverUpdatedFieldNames.contains(where: { name.equalsIgnoringASCIICase($0) }),
                options.isEmpty || !options.contains(name.lowercased()),
                !names.contains(where: { name.equalsIgnoringASCIICase($0) })
            else { continue }
            names.append(name)
        }
        // A 304 without `Date` is dated when it arrived: in place of the stored `Date`, or last.
        let date = hasDate ? nil : CacheDate.imfFixdate(receivedAt)
        var datePlaced = false
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(stored.count + notModified.count + 1)
        // The stored fields the 304 leaves, in order; then each updated name's 304 values; then the 304's `Age`.
        for field in stored.fields where !field.name.equalsIgnoringASCIICase("Age") {
            if let date, field.name.equalsIgnoringASCIICase("Date") {
                if !datePlaced { fields.append(HTTPHeaders.Field(name: "Date", value: date)) }
                datePlaced = true
                continue
            }
            guard !names.contains(where: { field.name.equalsIgnoringASCIICase($0) }) else { continue }
            fields.append(field)
        }
        for name in names {
            for field in notModified.fields where field.name.equalsIgnoringASCIICase(name) {
                fields.append(HTTPHeaders.Field(name: name, value: field.value))
            }
        }
        for field in notModified.fields where field.name.equalsIgnoringASCIICase("Age") {
            fields.append(HTTPHeaders.Field(name: "Age", value: field.value))
        }
        if let date, !datePlaced { fields.append(HTTPHeaders.Field(name: "Date", value: date)) }
        return HTTPHeaders(fields)
    }

    /// Whether an entity tag is weak: it starts with `W/` (`w/` is read too).
    private static func isWeak(_ tag: String) -> Bool {
        var bytes = tag.utf8.makeIterator()
        return bytes.next().map { $0 | 0x20 } == UInt8(ascii: "w") && bytes.next() == UInt8(ascii: "/")
    }

    /// An entity tag without its weakness prefix.
    private static func opaqueTag(_ tag: String) -> Substring {
        isWeak(tag) ? tag.dropFirst(2) : tag[...]
    }
}
