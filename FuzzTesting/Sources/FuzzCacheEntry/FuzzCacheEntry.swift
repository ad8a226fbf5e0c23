import Foundation
import FuzzHarness
@_spi(Fuzzing) import SimpleNetworking

/// Any bytes as a disk cache's stored entry head (through `HTTPCache.checkEntryFile`, SPI): read by the entry
/// format's decoder, and placed in a cache folder that a `DiskCacheStorage` then opens.
///
/// Invariant: no trap; bytes that read as a head encode back to exactly the same bytes (the format has one encoding
/// per head), which read back as an equal entry, and the entry stores through a fresh storage and reads back equal,
/// body included; bytes that are not a head are dropped: the storage holds nothing and the file, and the body file
/// beside it, are removed; a head is kept, and its body reads back, only when the file bears its own digest's name,
/// its body file has the stated length and the entry fits the storage's limit for one entry; otherwise it is dropped
/// the same way.
///
/// Input: byte 0 chooses the placement: bit 0 set puts the file under its entry's own name (else another name of the
/// cache's); bits 1-2 choose the body file beside it: 0 of the stated length, 1 a byte shorter, 2 a byte longer, 3
/// none. The rest is the head file (see `Corpus/fuzz-cache-entry` for heads in the format of
/// `Sources/SimpleNetworking/Cache/CacheEntry+Format.swift`).
@main
enum FuzzCacheEntry: FuzzTarget {
    static func check(_ input: FuzzInput) {
        let bytes = Array(input.bytes.dropFirst())
        let change: Int? = [0, -1, 1, nil][Int(input.selector >> 1 & 3)]
        let report = HTTPCache.checkEntryFile(
            bytes, in: ScratchFiles.file("cache"), underItsOwnName: input.flag(0), bodyLengthChange: change)

        guard let bodyLength = report.bodyLength else {
            Fuzzer.require(report.reencoded == nil, "bytes that are not a head encode to nothing")
            Fuzzer.require(
                !report.isStored && report.storedBytes == 0,
                "bytes that are not a head store nothing: \(report.storedBytes) bytes")
            Fuzzer.require(
                !report.headFileKept && !report.bodyFileKept,
                "a file that is not a head is removed, and the body beside it (\(report.formatError ?? ""))")
            return
        }
        Fuzzer.require(report.formatError == nil, "a head read has no format error")
        Fuzzer.require(report.reencoded == bytes, "a head encodes back to the same bytes")
        Fuzzer.require(report.reencodedReadsBackEqual, "a head encoded again reads back equal")
        if bytes.count <= report.maximumEntryBytes {
            Fuzzer.require(report.storesAndReadsBack == true, "a head stores and reads back through a storage")
        }

        let fits =
            report.placedUnderItsOwnName && report.bodyFileLength == bodyLength
            && bytes.count + bodyLength <= report.maximumEntryBytes
        if fits {
            Fuzzer.require(report.isStored, "a head under its own name, with its body, is stored")
            Fuzzer.require(report.bodyReadsBack == true, "its body reads back")
            Fuzzer.require(
                report.storedBytes == bytes.count + bodyLength,
                "it counts its files' sizes: \(report.storedBytes) for \(bytes.count) + \(bodyLength)")
            Fuzzer.require(report.headFileKept && report.bodyFileKept, "its files stay")
        } else {
            Fuzzer.require(
                !report.isStored && report.storedBytes == 0,
                "a head misnamed, without its body or too large stores nothing: \(report.storedBytes) bytes")
            Fuzzer.require(
                !report.headFileKept && !report.bodyFileKept,
                "a head misnamed, without its body or too large is removed")
        }
    }
}
