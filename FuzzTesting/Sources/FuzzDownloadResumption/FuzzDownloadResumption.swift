import Foundation
import FuzzHarness
@_spi(Fuzzing) import SimpleNetworking

/// The rules of resuming a download (through `DownloadRules.evaluate`, SPI) on any `Content-Range`, status and
/// partial length, any first answer's `ETag`, `Last-Modified`, `Date` and `Content-Encoding`, and any partial file
/// and validator file a resumable download finds beside its destination.
///
/// Invariant: no trap; a `Content-Range` read as a byte range has its first byte at most its last, its last below
/// the whole length, and reads back the same once written again, and `bytes */N` names a length; a `206` is appended
/// only when its range starts where the partial file ends, a `416` completes only when it names the partial file's
/// length, another `206` or `416` is refused with a reason, any other 2xx restarts the file, and any other status is
/// not the download's; a validator is the first answer's strong `ETag` (quoted, not weak) or, without an `ETag`, its
/// `Last-Modified`; a partial file is taken only with a validator file of 1 to 1,024 bytes of UTF-8 without a line
/// break, and a partial file that is not empty, and then with exactly that validator and length.
///
/// Input: byte 0 chooses the status (its low 3 bits), whether a validator file is placed (bit 3) and whether a
/// partial file is (bit 4); the rest is fields split at `0xFF`, in order: `Content-Range` (none when empty), the
/// partial length in decimal digits, `ETag`, `Last-Modified`, `Date`, `Content-Encoding`, the validator file's bytes.
@main
enum FuzzDownloadResumption: FuzzTarget {
    static let statuses = [206, 416, 200, 204, 299, 304, 500, 0]

    static func check(_ input: FuzzInput) {
        let fields = input.fields + Array(repeating: "", count: max(0, 7 - input.fields.count))
        let status = statuses[Int(input.selector & 7)]
        let partialLength = Int64(fields[1].prefix(18)) ?? 0
        var firstAnswer: [(name: String, value: String)] = []
        for (name, value) in zip(["ETag", "Last-Modified", "Date", "Content-Encoding"], fields[2...5])
        where !value.isEmpty {
            firstAnswer.append((name, value))
        }
        // The validator file's raw bytes: the seventh field onwards, 0xFF included, as a file may hold any byte.
        let separators = input.bytes.dropFirst().enumerated().filter { $0.element == 0xFF }.map(\.offset)
        let validatorBytes = separators.count >= 6 ? Array(input.bytes.dropFirst().dropFirst(separators[5] + 1)) : []
        let partialFileLength = Int(clamping: min(max(partialLength, 0), 4096))
        let folder = ScratchFiles.file("download")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let report = DownloadRules.evaluate(
            status: status, contentRange: fields[0].isEmpty ? nil : fields[0], partialLength: partialLength,
            firstAnswer: firstAnswer, validatorFile: input.flag(3) ? validatorBytes : nil,
            partialFileLength: input.flag(4) ? partialFileLength : nil, in: folder)

        if report.contentRangeIsValid {
            if let first = report.rangeFirst, let last = report.rangeLast {
                Fuzzer.require(
                    first >= 0 && first <= last, "a range's first byte is at most its last: \(first)-\(last)")
                if let length = report.length { Fuzzer.require(last < length, "a range ends inside its length") }
            } else {
                Fuzzer.require(report.length != nil, "an unsatisfied range names a length")
            }
            Fuzzer.require(report.writtenAgainReadsBackEqual, "a range written again reads back the same")
        } else {
            Fuzzer.require(report.rangeFirst == nil && report.length == nil, "an invalid range names nothing")
        }

        let startsAtTheEnd = report.rangeFirst == partialLength
        let expected: String
        switch status {
        case 206: expected = startsAtTheEnd ? "append" : "refuse"
        case 416: expected = report.contentRangeIsValid && report.length == partialLength ? "complete" : "refuse"
        case 200..<300: expected = "restart"
        default: expected = "notADownload"
        }
        Fuzzer.require(report.verdict == expected, "status \(status): \(report.verdict), not \(expected)")
        Fuzzer.require((report.refusal != nil) == (report.verdict == "refuse"), "a refusal, and only it, has a reason")

        let etag = fields[2].trimmingCharacters(in: .whitespaces)
        if let validator = report.validator {
            if etag.isEmpty {
                Fuzzer.require(validator == fields[3], "without an ETag, the validator is Last-Modified")
            } else {
                Fuzzer.require(
                    validator == etag && etag.count >= 2 && etag.hasPrefix("\"") && etag.hasSuffix("\""),
                    "a validator from an ETag is that tag, strong")
            }
        }

        let text = String(bytes: validatorBytes, encoding: .utf8)
        let validatorTakable =
            input.flag(3) && !validatorBytes.isEmpty && validatorBytes.count <= 1024 && text != nil
            && !(text ?? "").contains(where: \.isNewline)
        if input.flag(4), partialFileLength > 0, validatorTakable {
            Fuzzer.require(
                report.storedPartialLength == Int64(partialFileLength) && report.storedPartialValidator == text,
                "a partial file with a good validator file is taken as it is")
        } else {
            Fuzzer.require(report.storedPartialLength == nil, "nothing is resumed without both files, as they must be")
        }
    }
}
