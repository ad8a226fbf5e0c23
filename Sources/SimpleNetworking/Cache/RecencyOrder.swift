/// Elements from the least recently used to the most, with every change in constant time: a list linked through a
/// dictionary, for the least-recently-used eviction of both cache storages.
package struct RecencyOrder<Element: Hashable & Sendable>: Sendable {
    private struct Links: Sendable {
        var older: Element?
        var newer: Element?
    }

    private var links: [Element: Links] = [:]
    /// The least recently used element; `nil` when empty.
    package private(set) var oldest: Element?
    /// The most recently used element; `nil` when empty.
    package private(set) var newest: Element?

    /// An empty order.
    package init() {}

    /// The number of elements.
    package var count: Int { links.count }

    /// Whether `element` is in the order.
    /// - Parameter element: An element.
    /// - Returns: The answer.
    package func contains(_ element: Element) -> Bool { links[element] != nil }

    /// Makes `element` the most recently used, adding it when it is not in the order yet.
    /// - Parameter element: The element just used.
    package mutating func markUsed(_ element: Element) {
        if newest == element { return }
        remove(element)
        links[element] = Links(older: newest, newer: nil)
        if let newest { links[newest]?.newer = element }
        newest = element
        if oldest == nil { oldest = element }
    }

    /// Takes `element` out of the order; nothing happens when it is not in it.
    /// - Parameter element: The element.
    package mutating func remove(_ element: Element) {
        guard let removed = links.removeValue(forKey: element) else { return }
        if let older = removed.older { links[older]?.newer = removed.newer } else { oldest = removed.newer }
        if let newer = removed.newer { links[newer]?.older = removed.older } else { newest = removed.older }
    }

    /// The element used next after `element`; `nil` for the newest, or an element not in the order.
    /// - Parameter element: An element of the order.
    /// - Returns: The next newer element.
    package func newer(than element: Element) -> Element? { links[element]?.newer }

    /// Every element, least recently used first.
    package var fromOldest: [Element] {
        var result: [Element] = []
        result.reserveCapacity(links.count)
        var next = oldest
        while let element = next {
            result.append(element)
            next = links[element]?.newer
        }
        return result
    }
}
