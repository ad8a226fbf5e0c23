import Foundation
import SimpleNetworking
import Testing

@Suite("Cache index and recency order")
struct CacheIndexTests {
    /// A step on a recency order of letters, and the order from oldest after it.
    struct Step: Sendable {
        enum Operation: Sendable {
            case use(Character)
            case remove(Character)
        }
        var operation: Operation
        var order: String
    }

    static let sequences: [Named<[Step]>] = [
        Named("uses in order", [.init(operation: .use("a"), order: "a"), .init(operation: .use("b"), order: "ab")]),
        Named(
            "a use moves to the newest end",
            [
                .init(operation: .use("a"), order: "a"), .init(operation: .use("b"), order: "ab"),
                .init(operation: .use("c"), order: "abc"), .init(operation: .use("a"), order: "bca"),
                .init(operation: .use("c"), order: "bac"), .init(operation: .use("c"), order: "bac"),
            ]),
        Named(
            "removing the oldest, the newest, the middle and a stranger",
            [
                .init(operation: .use("a"), order: "a"), .init(operation: .use("b"), order: "ab"),
                .init(operation: .use("c"), order: "abc"), .init(operation: .use("d"), order: "abcd"),
                .init(operation: .remove("a"), order: "bcd"), .init(operation: .remove("d"), order: "bc"),
                .init(operation: .remove("x"), order: "bc"), .init(operation: .use("e"), order: "bce"),
                .init(operation: .remove("c"), order: "be"), .init(operation: .remove("b"), order: "e"),
                .init(operation: .remove("e"), order: ""), .init(operation: .use("f"), order: "f"),
            ]),
    ]

    @Test("The recency order follows uses and removals", arguments: sequences)
    func recency(_ row: Named<[Step]>) {
        var order = RecencyOrder<Character>()
        for step in row.value {
            switch step.operation {
            case .use(let element): order.markUsed(element)
            case .remove(let element): order.remove(element)
            }
            #expect(String(order.fromOldest) == step.order)
            #expect(order.count == step.order.count)
            #expect(order.oldest == step.order.first && order.newest == step.order.last)
            if let first = step.order.first { #expect(order.newer(than: first) == step.order.dropFirst().first) }
        }
    }

    @Test("The index counts bytes, finds variants by key, and names the least recently used to evict")
    func index() {
        var index = CacheIndex<Int>()
        func entry(_ url: String, _ variant: String? = nil) -> CacheEntry {
            cacheEntry(url, vary: variant.map { ["accept": $0] } ?? [:])
        }
        index.insert(.init(entry: entry("a", "1"), bytes: 10, payload: 1))
        index.insert(.init(entry: entry("a", "2"), bytes: 20, payload: 2))
        index.insert(.init(entry: entry("b"), bytes: 30, payload: 3))
        #expect(index.totalBytes == 60 && index.count == 3)
        #expect(Set(index.variants(of: cacheKey("a"))) == [entry("a", "1"), entry("a", "2")])

        let replaced = index.insert(.init(entry: entry("a", "1"), bytes: 5, payload: 4))
        #expect(replaced?.payload == 1 && index.totalBytes == 55)
        #expect(index.recency.fromOldest.map(\.key.url) == ["a", "b", "a"])
        #expect(index.leastRecentlyUsed(toFit: 55) { _ in false }.isEmpty)
        #expect(index.leastRecentlyUsed(toFit: 40) { _ in false } == [entry("a", "2").id])
        #expect(index.leastRecentlyUsed(toFit: 30) { _ in false } == [entry("a", "2").id, entry("b").id])
        #expect(index.leastRecentlyUsed(toFit: 30) { $0 == entry("a", "2").id } == [entry("b").id])
        #expect(index.leastRecentlyUsed(toFit: 0) { _ in true }.isEmpty)

        var changed = entry("b")
        changed.status = 203
        let replacedHead = index.replaceHead(with: changed, bytes: 31)
        let replacedMissing = index.replaceHead(with: entry("c"), bytes: 1)
        #expect(replacedHead && !replacedMissing)
        #expect(index.totalBytes == 56 && index.record(for: changed.id)?.entry.status == 203)
        #expect(index.recency.newest == changed.id)

        let removed = index.removeVariants(of: cacheKey("a"))
        #expect(removed.map(\.payload).sorted() == [2, 4])
        #expect(index.variants(of: cacheKey("a")).isEmpty && index.totalBytes == 31 && index.count == 1)
        let first = index.remove(changed.id)
        let second = index.remove(changed.id)
        #expect(first?.payload == 3 && second == nil)
        #expect(index.totalBytes == 0 && index.recency.count == 0)
    }
}
