import Foundation

/// The rules of resuming a download with a range request (RFC 9110 §14), as values: what a partial file may be resumed
/// with, the range request's header fields, and what to do with the answer.
///
/// A download resumes only from bytes that are exactly a prefix of the representation the server would send again:
/// the first answer was a 2xx without a content coding (the bytes on disk are the bytes on the wire), and it named a
/// strong validator for `If-Range`, so that a server whose file changed answers `200` with the whole new file instead
/// of the rest of the old one.
package enum DownloadResumption {
    /// A strong validator of a response, for `If-Range` (RFC 9110 §13.1.5): its `ETag` unless weak (`W/`), else its
    /// `Last-Modified` when that is strong, at least a second before its `Date` (§8.8.2.2); `nil` when it has neither.
    package static func validator(of headers: HTTPHeaders) -> String? {
        if let tag = headers["ETag"]?.trimmingCharacters(in: .whitespaces), !tag.isEmpty {
            return tag.hasPrefix("W/") || !tag.hasPrefix("\"") || !tag.hasSuffix("\"") || tag.count < 2 ? nil : tag
        }
        guard let modified = headers["Last-Modified"], let date = headers["Date"],
            let modifiedAt = HTTPDate.parse(modified, now: Date()), let sentAt = HTTPDate.parse(date, now: Date()),
            sentAt.timeIntervalSince(modifiedAt) >= 1
        else { return nil }
        return modified
    }

    /// Whether the body of a response with `headers` is stored as it travelled: no content coding, or `identity`.
    package static func hasNoContentCoding(_ headers: HTTPHeaders) -> Bool {
        headers.values(for: "Content-Encoding").allSatisfy { value in
            value.split(separator: ",").allSatisfy {
                $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity"
            }
        }
    }

    /// The header fields that ask for the rest of a file from byte `offset` on, if it is still `validator`'s.
    package static func rangeFields(from offset: Int64, validator: String) -> [(name: String, value: String)] {
        [("Range", "bytes=\(offset)-"), ("If-Range", validator), ("Accept-Encoding", "identity")]
    }

    /// A `Content-Range` field of a byte range (RFC 9110 §14.4): `bytes first-last/length`, or `bytes */length` on a
    /// 416; `length` is `nil` for `*`.
    package struct ContentRange: Equatable {
        /// The first and last byte of the part, `nil` for the unsatisfied form (`bytes */length`).
        package var range: ClosedRange<Int64>?
        /// The length of the whole representation, `nil` when the server does not know it (`*`).
        package var length: Int64?

        /// Reads a field value; `nil` when it is not a valid byte range.
        package init?(_ value: String) {
            let text = value.trimmingCharacters(in: .whitespaces)
            guard text.lowercased().hasPrefix("bytes ") else { return nil }
            let parts = text.dropFirst("bytes ".count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            let (rangeText, lengthText) = (parts[0].trimmingCharacters(in: .whitespaces), String(parts[1]))
            if lengthText == "*" {
                length = nil
            } else {
                guard let total = Self.number(lengthText) else { return nil }
                length = total
            }
            if rangeText == "*" {
                guard length != nil else { return nil }
                range = nil
                return
            }
            let bounds = rangeText.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
                first <= last, length.map({ last < $0 }) ?? true
            else { return nil }
            range = first...last
        }

        package init(range: ClosedRange<Int64>?, length: Int64?) {
            self.range = range
            self.length = length
        }

        /// Digits only, no sign, no overflow.
        private static func number(_ text: some StringProtocol) -> Int64? {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int64(text)
        }
    }

    /// What to do with the answer to a range request for the rest of a file that has `partialLength` bytes.
    package enum Verdict: Equatable {
        /// A `206` for exactly the rest: append its body to the partial file.
        case append
        /// Another 2xx (the server sent the whole file, or its file changed): write the file again from its start.
        case restart
        /// A `416` whose `Content-Range` says the file is `partialLength` bytes: the partial file is the whole file.
        case complete
        /// A `206` or `416` that does not fit the partial file: drop it, and fail with this reason.
        case refuse(reason: String)
        /// Any other status: not the download's business (the handlers see it as usual).
        case notADownload
    }

    /// The verdict on a response with `status` and `headers` to a range request from byte `partialLength` on.
    package static func verdict(status: Int, headers: HTTPHeaders, partialLength: Int64) -> Verdict {
        let contentRange = headers["Content-Range"].flatMap(ContentRange.init)
        switch status {
        case 206:
            guard let contentRange, let range = contentRange.range else {
                return .refuse(reason: "a 206 answer without a valid Content-Range")
            }
            guard range.lowerBound == partialLength else {
                return .refuse(
                    reason: "the server resumed at byte \(range.lowerBound), but the partial file ends at byte "
                        + "\(partialLength)")
            }
            return .append
        case 416:
            guard let length = contentRange?.length, length == partialLength else {
                return .refuse(reason: "the server refused the range from byte \(partialLength) (416)")
            }
            return .complete
        case 200..<300:
            return .restart
        default:
            return .notADownload
        }
    }
}
