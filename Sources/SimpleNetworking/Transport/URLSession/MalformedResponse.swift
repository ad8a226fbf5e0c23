import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What can make a response invalid HTTP, with the library's words for it.
enum Malformed {
    case statusLine, headers, unreadableByFoundation, conflictingLength, invalidLength

    /// The library's detail for the error's description: what is wrong, and where to look.
    var detail: String {
        switch self {
        case .statusLine:
            return "its status line is not HTTP/1.x and a three-digit status "
                + "(does the port serve plain HTTP, not TLS or another protocol?)"
        case .headers:
            return "its header section could not be read "
                + "(a line without a colon, a NUL byte, or more header bytes than libcurl accepts)"
        case .unreadableByFoundation:
            return "FoundationNetworking could not read its status line or header fields (it refuses a status line "
                + "without a reason phrase, such as \"HTTP/1.1 200\", which the AsyncHTTPClient engine reads)"
        case .conflictingLength:
            return "it has Content-Length fields that disagree, so where its body ends is unknown"
        case .invalidLength:
            return "its Content-Length is not a decimal number, so where its body ends is unknown"
        }
    }

    /// `URLError(.badServerResponse)` with this problem as the library's detail, and the failing URL.
    func error(for request: URLRequest?) -> URLError {
        var userInfo = Self.failingURL(request)
        userInfo[TransportFailure.detailKey] = detail
        return URLError(.badServerResponse, userInfo: userInfo)
    }

    static func failingURL(_ request: URLRequest?) -> [String: Any] {
        guard let url = request?.url else { return [:] }
        return [NSURLErrorFailingURLErrorKey: url]
    }

    /// The problem with how a response with `head` delimits its body, if any (RFC 9112, section 6.3): every
    /// `Content-Length` value must be a decimal number, and repeated values must agree. `Transfer-Encoding`
    /// overrides it.
    static func framing(of head: ResponseHead) -> Malformed? {
        guard !head.hasTransferEncoding, head.contentLengthCount > 0 else { return nil }
        // The common case, one plain number, without collecting, splitting or trimming.
        if head.contentLengthCount == 1, let only = head.contentLength, !only.isEmpty,
            only.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        {
            return nil
        }
        let fields = head.headers.values(for: "Content-Length")
        guard !fields.isEmpty else { return nil }
        // Repeated fields arrive joined with ", " on Linux, and as separate fields elsewhere.
        let length = fields.joined(separator: ",")
        let values = length.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let numbers = values.compactMap { value -> String? in
            guard !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            let digits = value.drop { $0 == "0" }
            return digits.isEmpty ? "0" : String(digits)
        }
        guard numbers.count == values.count else { return .invalidLength }
        return Set(numbers).count == 1 ? nil : .conflictingLength
    }
}
