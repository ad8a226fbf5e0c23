import Foundation

// The entry to the rules of resuming a download, for the fuzz targets of `FuzzTesting/` only: SPI, not part of the
// library's API.

/// The resumption rules (``DownloadResumption``) and a resumable download's reading of the partial file a run left
/// (``DownloadFile``), run on one answer and one folder, for a fuzz target.
@_spi(Fuzzing)
public enum DownloadRules {
    /// What the rules made of one answer and one partial file.
    public struct Report: Sendable {
        /// The first and last byte the `Content-Range` names; `nil` when it names none or is not a byte range.
        public var rangeFirst: Int64?
        /// See ``rangeFirst``.
        public var rangeLast: Int64?
        /// The whole length the `Content-Range` names; `nil` for `*` or when it is not a byte range.
        public var length: Int64?
        /// Whether the `Content-Range` read as a byte range.
        public var contentRangeIsValid: Bool
        /// The value read, written again in its plain form (`bytes first-last/length`, `*` for an unknown part);
        /// `nil` when it was not a byte range.
        public var contentRangeWrittenAgain: String?
        /// Whether ``contentRangeWrittenAgain`` reads back as the same range and length.
        public var writtenAgainReadsBackEqual: Bool
        /// The verdict: `append`, `restart`, `complete`, `refuse` or `notADownload`.
        public var verdict: String
        /// The reason of a `refuse` verdict.
        public var refusal: String?
        /// The validator the first answer's fields allow a resume with, if any.
        public var validator: String?
        /// Whether the first answer's fields name no content coding.
        public var hasNoContentCoding: Bool
        /// The length and validator of the partial file a resumable download found in the folder, if it took one.
        public var storedPartialLength: Int64?
        /// See ``storedPartialLength``.
        public var storedPartialValidator: String?
    }

    /// Runs the rules.
    /// - Parameters:
    ///   - status: The status of the answer to a range request.
    ///   - contentRange: Its `Content-Range` value, or `nil` for none.
    ///   - partialLength: The length of the partial file the request asked the rest of.
    ///   - firstAnswer: The header fields of the first answer, whose validator and coding decide a resume.
    ///   - validatorFile: The bytes of the `.NAME.partial-validator` file a resumable download finds, or `nil` for
    ///     none.
    ///   - partialFileLength: The length of the `.NAME.partial` file beside it, or `nil` for none.
    ///   - folder: An empty folder to place the two files in.
    /// - Returns: The report.
    public static func evaluate(
        status: Int, contentRange: String?, partialLength: Int64, firstAnswer: [(name: String, value: String)],
        validatorFile: [UInt8]?, partialFileLength: Int?, in folder: URL
    ) -> Report {
        let parsed = contentRange.flatMap(DownloadResumption.ContentRange.init)
        let written = parsed.map { range in
            let part = range.range.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "*"
            return "bytes \(part)/\(range.length.map(String.init) ?? "*")"
        }
        var headers = HTTPHeaders()
        if let contentRange { headers.add(name: "Content-Range", value: contentRange) }
        let verdict = DownloadResumption.verdict(status: status, headers: headers, partialLength: partialLength)
        var (name, refusal) = ("", String?.none)
        switch verdict {
        case .append: name = "append"
        case .restart: name = "restart"
        case .complete: name = "complete"
        case .refuse(let reason): (name, refusal) = ("refuse", reason)
        case .notADownload: name = "notADownload"
        }
        let first = HTTPHeaders(firstAnswer.map { HTTPHeaders.Field(name: $0.name, value: $0.value) })

        let destination = folder.appendingPathComponent("file.bin")
        if let validatorFile {
            try? Data(validatorFile).write(to: folder.appendingPathComponent(".file.bin.partial-validator"))
        }
        if let partialFileLength {
            try? Data(count: partialFileLength).write(to: folder.appendingPathComponent(".file.bin.partial"))
        }
        let stored = DownloadFile(destination, resumable: true).partialToResume

        return Report(
            rangeFirst: parsed?.range?.lowerBound, rangeLast: parsed?.range?.upperBound, length: parsed?.length,
            contentRangeIsValid: parsed != nil, contentRangeWrittenAgain: written,
            writtenAgainReadsBackEqual: written.flatMap(DownloadResumption.ContentRange.init) == parsed,
            verdict: name, refusal: refusal, validator: DownloadResumption.validator(of: first),
            hasNoContentCoding: DownloadResumption.hasNoContentCoding(first), storedPartialLength: stored?.length,
            storedPartialValidator: stored?.validator)
    }
}
