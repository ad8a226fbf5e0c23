import Foundation
import SimpleNetworking
import Testing

@Suite("Cache file names")
struct CacheFileNameTests {
    static let vectors: [Named<([UInt8], String)>] = [
        Named("empty", [], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Named("abc", Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Named(
            "two blocks (FIPS 180-4 example)",
            Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Named(
            "55 bytes", Array(repeating: 0x78, count: 55),
            "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
        Named(
            "56 bytes", Array(repeating: 0x78, count: 56),
            "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
        Named(
            "63 bytes", Array(repeating: 0x78, count: 63),
            "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"),
        Named(
            "64 bytes", Array(repeating: 0x78, count: 64),
            "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"),
        Named(
            "65 bytes", Array(repeating: 0x78, count: 65),
            "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"),
        Named(
            "119 bytes", Array(repeating: 0x78, count: 119),
            "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"),
        Named(
            "1000 bytes", Array(repeating: 0x78, count: 1000),
            "44f8354494a5ba03ba1792a8d3e9c534c47a9181980fde7a3f44b06ef2ae7c7f"),
    ]

    @Test("SHA-256 gives the published digests, across block boundaries", arguments: vectors)
    func digest(_ row: Named<([UInt8], String)>) {
        let hex = PortableSHA256.hash(row.value.0).map { String(format: "%02x", $0) }.joined()
        #expect(hex == row.value.1)
    }

    static let digestA = String(repeating: "a", count: 32)

    static let kinds: [Named<(String, CacheFileName.Kind?)>] = [
        Named("head", digestA + ".head", .head(digest: digestA)),
        Named("body", digestA + ".00000000000000ff.body", .body(digest: digestA, bodyID: 255)),
        Named("temporary", ".0123456789abcdef.tmp", .temporary),
        Named("uppercase hex", String(repeating: "A", count: 32) + ".head", nil),
        Named("short digest", String(repeating: "a", count: 31) + ".head", nil),
        Named("a path", "../" + digestA + ".head", nil),
        Named("body without its number", digestA + ".body", nil),
        Named("body number not hex", digestA + ".00000000000000fg.body", nil),
        Named("temporary without its dot", "0123456789abcdef0.tmp", nil),
        Named("someone's notes", "notes.txt", nil),
        Named("empty", "", nil),
        Named("non-ASCII of the same length", String(repeating: "\u{E9}", count: 16) + ".head", nil),
    ]

    @Test("Only the names the cache writes are the cache's", arguments: kinds)
    func kind(_ row: Named<(String, CacheFileName.Kind?)>) {
        #expect(CacheFileName.kind(of: row.value.0) == row.value.1)
    }

    @Test("A name is a digest of the method, URL and Vary values, and nothing else")
    func names() {
        let entry = cacheEntry("https://example.com/../../etc/passwd", vary: ["accept": "a/b"])
        let digest = CacheFileName.digest(of: entry)
        #expect(CacheFileName.kind(of: CacheFileName.head(digest)) == .head(digest: digest))
        #expect(CacheFileName.kind(of: CacheFileName.body(digest, bodyID: .max)) == .body(digest: digest, bodyID: .max))
        var changedHead = entry
        changedHead.headers = ["X": "1"]
        changedHead.status = 404
        #expect(CacheFileName.digest(of: changedHead) == digest)
        #expect(CacheFileName.digest(of: cacheEntry("https://example.com/../../etc/passwd")) != digest)
        #expect(
            CacheFileName.digest(of: cacheEntry("https://example.com/../../etc/passwd", vary: ["accept": nil]))
                != digest)
        #expect(
            CacheFileName.digest(
                of: CacheEntry(
                    key: cacheKey("https://example.com/../../etc/passwd", method: .head), varyValues: ["accept": "a/b"],
                    status: 200, headers: [:], requestTime: cacheTestStart, responseTime: cacheTestStart)) != digest)
    }
}
