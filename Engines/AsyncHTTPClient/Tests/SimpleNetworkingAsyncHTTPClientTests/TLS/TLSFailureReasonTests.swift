import Foundation
import NIOSSL
import SimpleNetworking
import Testing

@testable import SimpleNetworkingAsyncHTTPClient

/// The words for each TLS check, from BoringSSL's reason names and NIOSSL's errors. The live cases (over TLS on
/// loopback) are in `EngineTLSTests`; this table covers the reasons a test server cannot easily provoke.
@Suite("TLS failure details")
struct TLSFailureReasonTests {
    @Test(
        "Each BoringSSL reason names its check",
        arguments: [
            ("CERTIFICATE_VERIFY_FAILED", "certificate not trusted"),
            ("TLSV1_ALERT_CERTIFICATE_REQUIRED", "client certificate required"),
            ("PEER_DID_NOT_RETURN_A_CERTIFICATE", "client certificate required"),
            ("SSLV3_ALERT_CERTIFICATE_EXPIRED", "client certificate rejected"),
            ("TLSV1_ALERT_UNKNOWN_CA", "client certificate rejected"),
            ("SSLV3_ALERT_BAD_CERTIFICATE", "client certificate rejected"),
            ("SSLV3_ALERT_CERTIFICATE_UNKNOWN", "client certificate rejected"),
            ("TLSV1_ALERT_ACCESS_DENIED", "client certificate rejected"),
            ("TLSV1_ALERT_DECRYPT_ERROR", "client certificate rejected"),
            ("TLSV1_ALERT_PROTOCOL_VERSION", "protocol version refused"),
            ("UNSUPPORTED_PROTOCOL", "protocol version refused"),
            ("TLSV1_ALERT_INSUFFICIENT_SECURITY", "protocol version refused"),
            ("SSLV3_ALERT_HANDSHAKE_FAILURE", "handshake refused"),
            ("NO_SHARED_CIPHER", "handshake refused"),
            ("TLSV1_ALERT_UNRECOGNIZED_NAME", "handshake refused"),
            ("TLSV1_ALERT_NO_APPLICATION_PROTOCOL", "handshake refused"),
            ("WRONG_VERSION_NUMBER", "handshake refused"),
        ])
    func reasons(reason: String, check: String) {
        let detail = TLSFailureReason.detail(reasons: [reason])
        #expect(detail.hasPrefix(check), "\(detail)")
        #expect(detail.hasSuffix("(BoringSSL: \(reason))"), "\(detail)")
    }

    @Test("The first reason with a check decides; an unknown one is named as it is")
    func unknownAndMixedReasons() {
        #expect(
            TLSFailureReason.detail(reasons: ["SOMETHING_NEW"])
                == "the TLS handshake failed (BoringSSL: SOMETHING_NEW)")
        #expect(TLSFailureReason.detail(reasons: []) == "the TLS handshake failed (BoringSSL gave no reason)")
        let mixed = TLSFailureReason.detail(reasons: ["SOMETHING_NEW", "TLSV1_ALERT_PROTOCOL_VERSION"])
        #expect(
            mixed.hasPrefix("protocol version refused")
                && mixed.hasSuffix("SOMETHING_NEW, TLSV1_ALERT_PROTOCOL_VERSION)"))
    }

    @Test("NIOSSL's errors are tlsFailure, each with its check")
    func nioSSLErrors() {
        let table: [(any Error, String)] = [
            (NIOSSLExtraError.failedToValidateHostname, "host name mismatch"),
            (NIOSSLError.handshakeFailed(.sslError([.eofDuringHandshake])), "handshake refused"),
            (NIOSSLError.handshakeFailed(.syscallError), "handshake refused"),
            (BoringSSLError.sslError([]), "the TLS handshake failed"),
            (NIOSSLError.uncleanShutdown, "the server closed the connection without ending TLS"),
        ]
        for (error, check) in table {
            let failure = AsyncHTTPClientTransport.failure(error, afterHead: false).transportFailure
            #expect(failure?.category == .tlsFailure, "\(error)")
            #expect(failure?.detail?.hasPrefix(check) == true, "\(error): \(failure?.detail ?? "no detail")")
        }
    }
}
