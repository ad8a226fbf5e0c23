import Foundation
import SimpleNetworking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// FoundationNetworking reports most of libcurl's failures as `URLError.unknown` with libcurl's message alone; the
/// library reads the message into the category a retry policy decides on (<doc:LinuxPlatformNotes>).
@Suite("libcurl's messages")
struct LibcurlMessageTests {
    /// Whole messages as libcurl 7.88 writes them into its error buffer (its `failf` formats, with a host and port
    /// filled in), and `curl_easy_strerror`'s texts for an empty buffer; the category each stands for, and a word the
    /// library's phrase must hold, if any.
    static let messages: [(message: String, category: TransportFailure.Category, phrase: String?)] = [
        ("Failed to connect to 127.0.0.1 port 8080 after 3 ms: No route to host", .cannotConnect, nil),
        ("Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server", .cannotConnect, nil),
        ("Failed to connect to ::1 port 443 after 0 ms: Network is unreachable", .cannotConnect, nil),
        ("Couldn't connect to server", .cannotConnect, nil),
        ("Could not resolve host: api.example", .hostNotFound, nil),
        ("Failed to connect to 127.0.0.1 port 8080 after 75002 ms: Connection timed out", .timedOut, nil),
        ("Resolving timed out after 5000 milliseconds", .timedOut, nil),
        ("SSL certificate problem: unable to get local issuer certificate", .tlsFailure, "unknown issuer"),
        ("SSL certificate problem: self-signed certificate", .tlsFailure, "unknown issuer"),
        ("SSL certificate problem: self signed certificate in certificate chain", .tlsFailure, "unknown issuer"),
        ("SSL certificate problem: certificate has expired", .tlsFailure, "expired"),
        ("SSL certificate problem: certificate is not yet valid", .tlsFailure, "not yet valid"),
        (
            "SSL: no alternative certificate subject name matches target host name 'api.example'", .tlsFailure,
            "host name"
        ),
        (
            "OpenSSL/3.0.19: error:0A00045C:SSL routines::tlsv13 alert certificate required", .tlsFailure,
            "client certificate"
        ),
        ("OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to 127.0.0.1:8443", .tlsFailure, "handshake"),
        ("error:0A00010B:SSL routines::wrong version number", .tlsFailure, "handshake"),
        ("Recv failure: Connection reset by peer", .connectionLost, nil),
        ("Send failure: Broken pipe", .connectionLost, nil),
        ("Connection died, tried 5 times before giving up", .connectionLost, nil),
        ("Header without colon", .badServerResponse, "header section"),
        ("Nul byte in header", .badServerResponse, "header section"),
        ("Failed writing header", .badServerResponse, "reason phrase"),
        ("Some message libcurl may add one day", .other, nil),
    ]

    @Test("Each message is read into its category, and the description keeps the message", arguments: messages)
    func message(_ row: (message: String, category: TransportFailure.Category, phrase: String?)) throws {
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:8080/path")))
        let unknown = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: row.message])

        let failure = TransportFailure(LibcurlMessage.corrected(unknown, request: request))

        #expect(failure.category == row.category)
        #expect(failure.description.contains("libcurl: " + row.message), "\(failure)")
        if let phrase = row.phrase { #expect(failure.description.contains(phrase), "\(failure)") }
        #expect(failure.urlError?.failingURL?.path == "/path")
    }
}
