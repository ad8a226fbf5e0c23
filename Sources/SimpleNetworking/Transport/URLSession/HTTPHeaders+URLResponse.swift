import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension HTTPHeaders {
    /// The headers of a Foundation response (package-wide, for transport-probe to measure).
    ///
    /// Repeated fields arrive joined with ", " in `allHeaderFields`; that is equivalent for list headers (RFC 9110,
    /// section 5.3), but not for `Set-Cookie`, whose dates hold commas, so `Set-Cookie` is split back into its fields.
    /// On Linux `allHeaderFields` rebuilds the response's `[String: String]` as `[AnyHashable: Any]` on every call,
    /// so it is read once; casting that whole dictionary back costs more than casting each name through `base`.
    package init(_ response: HTTPURLResponse) {
        let all = response.allHeaderFields
        var fields: [Field] = []
        fields.reserveCapacity(all.count)
        func add(_ name: String, _ value: String) {
            // The first byte rules out almost every other name before a full comparison.
            guard name.utf8.first.map({ $0 | 0x20 }) == UInt8(ascii: "s"), name.equalsIgnoringASCIICase("Set-Cookie")
            else {
                return fields.append(Field(name: name, value: value))
            }
            for cookie in SetCookieFields.split(value) { fields.append(Field(name: name, value: cookie)) }
        }
        for (name, value) in all {
            // Through `base`: a cast from `Any` that checks one type, where casting the AnyHashable itself goes
            // through its generic box and costs several times more.
            guard let name = name.base as? String else { continue }
            add(name, value as? String ?? "\(value)")
        }
        self.init(fields)
    }
}
