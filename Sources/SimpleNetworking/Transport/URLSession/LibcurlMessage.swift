import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What libcurl's message for a failed transfer says happened.
///
/// FoundationNetworking reports most of libcurl's failures as `URLError.unknown` (-1), with libcurl's message as the
/// error's description and nothing else: "No route to host" during an outage, an untrusted certificate and a broken
/// pipe all read the same. The message is all there is to tell them apart, so it is read here, once, into the
/// `URLError` code Apple platforms report for the same failure, and the library's phrase for it; the message itself
/// stays in the description (see "URLSession on Linux" in the documentation).
package struct LibcurlMessage: Sendable {
    /// The code Apple platforms report for this failure.
    package let code: URLError.Code
    /// The library's phrase for what failed, when it says more than the code's category: which TLS check failed.
    package let phrase: String?

    /// What `message` says happened, or `nil` when it names nothing the library knows.
    ///
    /// The fragments are libcurl's own message formats (its `failf` calls and `curl_easy_strerror`), compared without
    /// regard to case; the table in the tests holds whole messages as libcurl 7.88 writes them.
    package init?(_ message: String) {
        let text = message.lowercased()
        if Self.mentions(text, "failed writing header") {
            // FoundationNetworking's own header parser refused the response (it aborts libcurl's header callback).
            (code, phrase) = (.badServerResponse, Malformed.unreadableByFoundation.detail)
        } else if Self.mentions(
            text, "header without colon", "nul byte in header", "too large response headers", "header")
        {
            (code, phrase) = (.badServerResponse, Malformed.headers.detail)
        } else if let check = Self.tlsCheck(text) {
            (code, phrase) = check
        } else if Self.mentions(text, "could not resolve", "couldn't resolve") {
            (code, phrase) = (.cannotFindHost, nil)
        } else if Self.mentions(text, "timed out", "timeout was reached") {
            (code, phrase) = (.timedOut, nil)
        } else if Self.mentions(
            text,
            "failed to connect", "couldn't connect", "could not connect", "no route to host", "network is unreachable",
            "connection refused", "cannot assign requested address")
        {
            (code, phrase) = (.cannotConnectToHost, nil)
        } else if Self.mentions(
            text,
            "recv failure", "send failure", "connection reset", "broken pipe", "connection died",
            "transfer closed", "failure when receiving data", "failed sending data")
        {
            (code, phrase) = (.networkConnectionLost, nil)
        } else {
            return nil
        }
    }

    /// The code and phrase of a TLS failure, by the check that failed, or `nil` when `text` (lowercased) is not one.
    private static func tlsCheck(_ text: String) -> (URLError.Code, String?)? {
        if Self.mentions(text, "certificate has expired") {
            return (.serverCertificateHasBadDate, "the server's certificate has expired")
        }
        if Self.mentions(text, "certificate is not yet valid") {
            return (.serverCertificateNotYetValid, "the server's certificate is not yet valid")
        }
        if Self.mentions(
            text,
            "unable to get local issuer", "unable to get issuer", "self-signed certificate", "self signed certificate",
            "unable to verify the first certificate")
        {
            return (
                .serverCertificateHasUnknownRoot,
                "the server's certificate is not issued by a trusted authority (unknown issuer)"
            )
        }
        if Self.mentions(text, "subject name", "does not match target host", "no alternative certificate") {
            return (.serverCertificateUntrusted, "the server's certificate is not for this host name")
        }
        if Self.mentions(text, "certificate required", "alert certificate required") {
            return (.clientCertificateRequired, "the server requires a client certificate")
        }
        if Self.mentions(text, "ssl", "tls", "certificate") {
            return (.secureConnectionFailed, "the TLS handshake failed")
        }
        return nil
    }

    /// Whether `text` (lowercased) holds one of `fragments`.
    private static func mentions(_ text: String, _ fragments: String...) -> Bool {
        fragments.contains { text.contains($0) }
    }

    /// `error`, a failure FoundationNetworking reported as `URLError.unknown`, with the code its message stands for
    /// and a description that keeps the message: the library's phrase, then `; libcurl: <message>`.
    package static func corrected(_ error: URLError, request: URLRequest?) -> URLError {
        guard let message = error.userInfo[NSLocalizedDescriptionKey] as? String, !message.isEmpty else { return error }
        let read = LibcurlMessage(message)
        var userInfo = Malformed.failingURL(request)
        userInfo[TransportFailure.detailKey] = [read?.phrase, "libcurl: " + message].compactMap { $0 }.joined(
            separator: "; ")
        return URLError(read?.code ?? error.code, userInfo: userInfo)
    }
}
