import Foundation

/// An ordered list of HTTP header fields with case-insensitive lookup by name.
///
/// Setting a value through the subscript replaces every field of that name; setting `nil` removes them.
/// ``add(name:value:)`` keeps repeated fields such as `Set-Cookie` apart.
///
/// ```swift
/// let headers: HTTPHeaders = ["Accept": "application/json"]
/// let accept = headers["accept"]  // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Hashable {
    /// One header field as it appears on the wire.
    public struct Field: Sendable, Hashable {
        /// The field name, with the case it was given.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The field value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in the order they were added.
    public private(set) var fields: [Field]

    /// Creates a header list from fields, keeping their order and repeats.
    /// - Parameter fields: The fields.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// The first value for `name`, compared without regard to ASCII case; setting replaces all fields of that name.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value }
        set {
            guard let index = fields.firstIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) else {
                if let newValue { fields.append(Field(name: name, value: newValue)) }
                return
            }
            if let newValue {
                fields[index].value = newValue
                fields[index].name = name
                removeFields(named: name, after: index)
            } else {
                fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
            }
        }
    }

    /// Every value for `name`, in order.
    /// - Parameter name: The field name, compared without regard to ASCII case.
    /// - Returns: The values; empty when there is none.
    public func values(for name: String) -> [String] {
        // One pass, no intermediate list of fields: lookups run several times on every request.
        var values: [String] = []
        for field in fields where field.name.equalsIgnoringASCIICase(name) {
            values.append(field.value)
        }
        return values
    }

    /// Appends a field, keeping any earlier field of the same name.
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    /// - Parameter name: The field name, compared without regard to ASCII case.
    public mutating func remove(name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Whether a field named `name` is present.
    /// - Parameter name: The field name, compared without regard to ASCII case.
    /// - Returns: `true` when at least one field has that name.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// This list with every field of `other` applied on top: a name present in `other` replaces all of its fields here.
    /// - Parameter other: The fields that win.
    /// - Returns: The merged list.
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        guard !other.isEmpty else { return self }
        guard !isEmpty else { return other }
        var merged = self
        for name in other.uniqueNames {
            merged.remove(name: name)
        }
        merged.fields.append(contentsOf: other.fields)
        return merged
    }

    /// The names present, first spelling kept, in order.
    var uniqueNames: [String] {
        var names: [String] = []
        for field in fields where !names.contains(where: { $0.equalsIgnoringASCIICase(field.name) }) {
            names.append(field.name)
        }
        return names
    }

    /// The fields as a dictionary for `URLRequest.allHTTPHeaderFields`, repeated names joined with ", ".
    var dictionary: [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(fields.count)
        for field in fields {
            if let existing = result[field.name] {
                result[field.name] = existing + ", " + field.value
            } else {
                result[field.name] = field.value
            }
        }
        return result
    }

    private mutating func removeFields(named name: String, after index: Int) {
        var position = fields.index(after: index)
        while position < fields.endIndex {
            if fields[position].name.equalsIgnoringASCIICase(name) {
                fields.remove(at: position)
            } else {
                position = fields.index(after: position)
            }
        }
    }
}

extension HTTPHeaders: ExpressibleByDictionaryLiteral {
    /// Creates a header list from a literal, in the literal's order.
    /// - Parameter elements: Name and value pairs.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { Field(name: $0.0, value: $0.1) })
    }
}

extension HTTPHeaders: Sequence {
    /// Iterates over the fields in order.
    /// - Returns: An iterator over the fields.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The header names only: values can hold credentials, so they are never printed.
    public var description: String {
        "HTTPHeaders(" + fields.map(\.name).joined(separator: ", ") + ")"
    }
}

extension String {
    /// ASCII case-insensitive equality, without allocating lowercased copies. The lengths are compared here, inline
    /// where it is called: most header names a lookup passes differ in length from the one it looks for, and a native
    /// string knows its length without reading its bytes, so those cost no call.
    @inline(__always)
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.count == other.utf8.count && sameLengthEqualsIgnoringASCIICase(other)
    }

    /// ``equalsIgnoringASCIICase(_:)`` for a string of the same length: header names are native strings, compared
    /// on their contiguous bytes, which is several times faster than walking two UTF-8 views. Names spelled alike,
    /// the common case, are told first by plain equality, which compares a short string's bits in place.
    private func sameLengthEqualsIgnoringASCIICase(_ other: String) -> Bool {
        if self == other { return true }
        let compared = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs -> Bool in
                guard lhs.count == rhs.count else { return false }
                for index in 0..<lhs.count where lowercasedASCIIByte(lhs[index]) != lowercasedASCIIByte(rhs[index]) {
                    return false
                }
                return true
            }
        }
        if let compared = compared ?? nil { return compared }
        return self[...].equalsIgnoringASCIICase(other[...])
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality, without allocating lowercased copies, for any two strings or substrings
    /// (a `String` compared with a `String` takes the faster `equalsIgnoringASCIICase(_:)` of `String`).
    func equalsIgnoringASCIICase<Other: StringProtocol>(_ other: Other) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { lowercasedASCIIByte($0) == lowercasedASCIIByte($1) }
    }
}

@inline(__always)
private func lowercasedASCIIByte(_ byte: UInt8) -> UInt8 {
    (byte >= 65 && byte <= 90) ? byte + 32 : byte
}

extension HTTPHeaders {
    /// The names whose values differ between `self` and `edited` (lowercased), with their values in `edited`:
    /// what an in-place edit of a copy changed, so it can be merged back without undoing concurrent edits of other
    /// names. Linear in the number of fields.
    func changes(to edited: HTTPHeaders) -> [(name: String, values: [String])] {
        guard edited != self else { return [] }
        func grouped(_ headers: HTTPHeaders) -> [String: (name: String, values: [String])] {
            var groups: [String: (name: String, values: [String])] = [:]
            for field in headers.fields {
                groups[field.name.lowercased(), default: (field.name, [])].values.append(field.value)
            }
            return groups
        }
        let old = grouped(self)
        let new = grouped(edited)
        var changes: [(name: String, values: [String])] = []
        for (key, entry) in new where old[key]?.values != entry.values { changes.append(entry) }
        for (key, entry) in old where new[key] == nil { changes.append((entry.name, [])) }
        return changes
    }

    /// Replaces every field named `name` with `values` (none removes the name).
    mutating func replaceValues(of name: String, with values: [String]) {
        remove(name: name)
        for value in values { add(name: name, value: value) }
    }
}
