import Foundation

/// One stored response of an ``HTTPCache``: its head (what the request was, what the response said and when), and a
/// reference to its body, which the storage keeps apart and reads on demand (``CacheStorage/openBody(of:)``).
///
/// An entry is found by its primary key (the request's method and URL, RFC 9111 section 2), and then told apart from
/// the other variants of that key by the values the stored request had for the fields its response's `Vary` names
/// (RFC 9111 section 4.1). The key and those values together are the entry's ``id``: storing an entry with the same
/// `id` replaces the one before, and several variants of one URL live side by side.
package struct CacheEntry: Sendable, Hashable, Identifiable {
    /// The primary key: a request's method and target URL.
    package struct Key: Sendable, Hashable, CustomStringConvertible {
        /// The method, as sent: `GET`, `HEAD`, ...
        package let method: String
        /// The absolute URL, without its fragment.
        package let url: String

        /// The key of a request.
        /// - Parameters:
        ///   - method: The request's method.
        ///   - url: The request's URL; a fragment is never sent, so it is left out of the key.
        package init(method: HTTPMethod, url: URL) {
            self.method = method.rawValue
            var text = url.absoluteString
            if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
            self.url = text
        }

        /// A key from its stored parts, as the entry format reads it back.
        /// - Parameters:
        ///   - method: The method, as sent.
        ///   - url: The absolute URL text.
        package init(method: String, url: String) {
            self.method = method
            self.url = url
        }

        /// The method alone: a URL can carry a query with tokens in it, and descriptions end up in logs.
        package var description: String { "CacheEntry.Key(\(method))" }
    }

    /// The secondary key: the stored request's values of the fields named by its response's `Vary`, by lowercased
    /// name, sorted; `nil` for a field the request did not have. Empty for a response without `Vary`.
    package struct Variant: Sendable, Hashable {
        /// The lowercased field names, sorted, each once.
        package let names: [String]
        /// The value of each name, in the same order; `nil` where the request lacked the field.
        package let values: [String?]

        /// The variant for `values`, its names lowercased (where two names differ only in case, one of them is
        /// kept).
        /// - Parameter values: Field name to the request's value, `nil` where it had none.
        package init(_ values: [String: String?]) {
            var lowered: [String: String?] = [:]
            for (name, value) in values { lowered[name.lowercased()] = value }
            names = lowered.keys.sorted()
            self.values = names.map { lowered[$0] ?? nil }
        }

        /// The variant of a response without `Vary`.
        package static let none = Variant([:])

        /// The values by lowercased name.
        package var dictionary: [String: String?] {
            var result: [String: String?] = [:]
            for (name, value) in zip(names, values) { result[name] = value }
            return result
        }
    }

    /// An entry's place in a storage: its key and variant. At most one entry per identity is stored.
    ///
    /// It hashes its parts once, when made: a storage looks an entry up by it more than once per lookup. The parts
    /// live in one shared box, so that an identity (and an entry, whose key and variant are its identity's) is
    /// copied with one reference count instead of one per string and list (<doc:Performance>, "HTTP cache").
    package struct ID: Sendable, Hashable {
        /// The parts and their hash, made once.
        private final class Parts: Sendable {
            let key: Key
            let variant: Variant
            let hash: Int

            init(key: Key, variant: Variant) {
                self.key = key
                self.variant = variant
                var hasher = Hasher()
                hasher.combine(key)
                hasher.combine(variant)
                hash = hasher.finalize()
            }
        }

        private let parts: Parts

        /// The primary key.
        package var key: Key { parts.key }
        /// The secondary key.
        package var variant: Variant { parts.variant }

        /// An identity from its parts.
        /// - Parameters:
        ///   - key: The primary key.
        ///   - variant: The secondary key.
        package init(key: Key, variant: Variant) {
            parts = Parts(key: key, variant: variant)
        }

        package static func == (lhs: ID, rhs: ID) -> Bool {
            lhs.parts === rhs.parts
                || (lhs.parts.hash == rhs.parts.hash && lhs.key == rhs.key && lhs.variant == rhs.variant)
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(parts.hash)
        }
    }

    /// The primary key.
    package var key: Key { id.key }
    /// The secondary key: the stored request's values of the fields the response's `Vary` names.
    package var variant: Variant { id.variant }
    /// The response's status code.
    package var status: Int {
        didSet { derived = Derived() }
    }
    /// The response's header fields, as received (or as merged from a `304`, RFC 9111 section 4.3.4).
    package var headers: HTTPHeaders {
        didSet { derived = Derived() }
    }
    /// When the request was sent (`request_time`, RFC 9111 section 4.2.3).
    package var requestTime: Date {
        didSet { derived = Derived() }
    }
    /// When the response was received (`response_time`, RFC 9111 section 4.2.3).
    package var responseTime: Date {
        didSet { derived = Derived() }
    }
    /// What is read from this head, made once for every copy of the entry (a memory cache hands out the same copy
    /// to each lookup): not part of the entry's value, and started afresh when the head changes.
    package private(set) var derived = Derived()
    /// The length of the stored body in bytes; set by the storage when it stores the body.
    package internal(set) var bodyLength: Int
    /// Which stored body belongs to this head, set by the storage: a body replaced after a lookup has another
    /// number, so a head is never read with another response's body (a lookup that lost that race reads nothing).
    package internal(set) var bodyID: UInt64

    /// Creates the head of an entry to store; the storage sets ``bodyLength`` and ``bodyID``.
    /// - Parameters:
    ///   - key: The request's method and URL.
    ///   - varyValues: The request's value of each field the response's `Vary` names, `nil` where the request had
    ///     none; empty when the response has no `Vary`. Names are compared without regard to case.
    ///   - status: The response's status code.
    ///   - headers: The response's header fields.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    package init(
        key: Key, varyValues: [String: String?] = [:], status: Int, headers: HTTPHeaders, requestTime: Date,
        responseTime: Date
    ) {
        self.init(
            key: key, variant: Variant(varyValues), status: status, headers: headers, requestTime: requestTime,
            responseTime: responseTime, bodyLength: 0, bodyID: 0)
    }

    /// This entry with the header fields and times a `304` brought: its key, variant, identity, status and body
    /// kept, its identity not hashed again.
    /// - Parameters:
    ///   - headers: The merged header fields.
    ///   - requestTime: When the validation request was sent.
    ///   - responseTime: When the `304` was received.
    /// - Returns: The updated entry, with a fresh ``derived``.
    package func updated(headers: HTTPHeaders, requestTime: Date, responseTime: Date) -> CacheEntry {
        CacheEntry(
            id: id, status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
            bodyLength: bodyLength, bodyID: bodyID)
    }

    /// Creates an entry from every field, as the entry format reads it back.
    /// - Parameters:
    ///   - key: The primary key.
    ///   - variant: The secondary key.
    ///   - status: The status code.
    ///   - headers: The response's header fields.
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response was received.
    ///   - bodyLength: The body's length in bytes.
    ///   - bodyID: The stored body's number.
    package init(
        key: Key, variant: Variant, status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date,
        bodyLength: Int, bodyID: UInt64
    ) {
        self.init(
            id: ID(key: key, variant: variant), status: status, headers: headers, requestTime: requestTime,
            responseTime: responseTime, bodyLength: bodyLength, bodyID: bodyID)
    }

    /// Creates an entry from its identity, made already, and every other field.
    private init(
        id: ID, status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date, bodyLength: Int,
        bodyID: UInt64
    ) {
        self.id = id
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.bodyLength = bodyLength
        self.bodyID = bodyID
    }

    /// Values read from an entry's head, each made the first time it is asked for. Copies of an entry share them
    /// (the lock is one object, referred to by every copy); two entries are equal whatever they hold.
    package struct Derived: Sendable, Hashable {
        private let head = Locked<CachedResponseHead?>(nil)

        /// An empty one.
        package init() {}

        /// The head the cache rules read, made by `make` the first time.
        package func head(_ make: () -> CachedResponseHead) -> CachedResponseHead {
            head.withLock { head in
                if let head { return head }
                let made = make()
                head = made
                return made
            }
        }

        package static func == (lhs: Derived, rhs: Derived) -> Bool { true }

        package func hash(into hasher: inout Hasher) {}
    }

    /// The stored request's values of the fields the response's `Vary` names, by lowercased name.
    package var varyValues: [String: String?] { variant.dictionary }

    /// The entry's place in a storage: its key and variant.
    package let id: ID
}
