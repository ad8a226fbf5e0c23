import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SimpleNetworking
import SimpleNetworkingContentDecoding

extension AsyncHTTPClientTransport {
    /// The library's error for what AsyncHTTPClient or SwiftNIO reported, in the categories the URLSession transport
    /// uses, so the client's retry policy decides the same way over either. A TLS failure names the check that failed
    /// (`TLSFailureReason`).
    /// - Parameters:
    ///   - error: The error the request failed with.
    ///   - afterHead: Whether the response head had arrived: a connection that ends after it cut the body short.
    ///   - overTLS: Whether the request was HTTPS: a connection closed before the head may be a server's refusal of
    ///     the client certificate, which AsyncHTTPClient does not report over HTTP/2.
    static func failure(_ error: any Error, afterHead: Bool, overTLS: Bool = false) -> SimpleNetworkingError {
        if let tooLarge = error as? ResponseStreamer.TooLarge { return .responseTooLarge(limit: tooLarge.limit) }
        if let stopped = error as? ResponseStreamer.Stopped { return stopped.error }
        if let error = error as? SimpleNetworkingError { return error }
        let category: TransportFailure.Category
        let underlying: (any Error & Sendable)?
        var detail: String?
        switch error {
        case let error as HTTPClientError:
            if error == .alreadyShutdown { return closedError }
            if error == .cancelled { return .cancelled }
            (category, underlying) = (Self.category(of: error, afterHead: afterHead), error)
            if overTLS, !afterHead, error == .remoteConnectionClosed { detail = closedAfterHandshake }
        case let error as NIOConnectionError:
            let resolved = error.dnsAError == nil || error.dnsAAAAError == nil || !error.connectionErrors.isEmpty
            (category, underlying) = (resolved ? .cannotConnect : .hostNotFound, error)
        case let error as IOError:
            (category, underlying) = (Self.category(of: error, afterHead: afterHead), error)
        case let error as ChannelError:
            (category, underlying) = (Self.category(of: error, afterHead: afterHead), error)
        case let error as HTTPParserError:
            let cut = afterHead && error == .invalidEOFState
            (category, underlying) = (cut ? .connectionLost : .badServerResponse, error)
            if !cut { detail = Self.reason(of: error) }
        case let error as ContentDecoder.Failure:
            (category, underlying, detail) = (.badServerResponse, error, error.description)
        case let error as NIOSSLError:
            (category, underlying, detail) = (.tlsFailure, error, TLSFailureReason.detail(of: error))
        case let error as BoringSSLError:
            (category, underlying, detail) = (.tlsFailure, error, TLSFailureReason.detail(of: error))
        case let error as NIOSSLExtraError:
            (category, underlying, detail) = (.tlsFailure, error, TLSFailureReason.detail(of: error))
        case is CancellationError:
            return .cancelled
        default:
            (category, underlying) = (.other, nil)
        }
        return .transportFailed(TransportFailure(category, underlying: underlying, detail: detail))
    }

    /// Why an HTTPS connection may close before any response: under TLS 1.3 a server checks the client certificate
    /// after the handshake, and over HTTP/2 AsyncHTTPClient reports its alert as the connection closing.
    static let closedAfterHandshake =
        "the server closed the connection without answering; under TLS 1.3 a server that requires a client "
        + "certificate, or refuses the one presented, does so after the handshake, and over HTTP/2 AsyncHTTPClient "
        + "does not report the server's TLS alert (with allowsHTTP2 off it reads as client certificate required or "
        + "rejected)"

    /// What the HTTP/1 parser refused in a response, in words a person can act on.
    static func reason(of error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow:
            return "the response's status line and headers are larger than the parser accepts (80 KiB)"
        case .invalidStatus: return "the status line is not valid HTTP (no three-digit status code)"
        case .invalidVersion: return "the status line does not start with a valid HTTP version"
        case .invalidConstant: return "the status line is not valid HTTP"
        case .invalidHeaderToken, .invalidCharactersUsed, .lfExpected, .strictModeAssertion:
            return "a header line is malformed (an invalid character, or a line not ended by CRLF)"
        case .invalidContentLength: return "the Content-Length header is not a decimal number"
        case .unexpectedContentLength:
            // llhttp's one error for a repeated Content-Length and for one beside Transfer-Encoding.
            return "the response repeats Content-Length, or has it beside Transfer-Encoding, "
                + "so where its body ends is unknown"
        case .invalidChunkSize: return "a chunk size of the chunked body is invalid"
        case .invalidEOFState, .closedConnection:
            return "the server closed the connection before the response was complete"
        case .trailingGarbage: return "the server sent bytes after the response"
        default: return "the response is not valid HTTP (\(error))"
        }
    }

    private static func category(of error: HTTPClientError, afterHead: Bool) -> TransportFailure.Category {
        switch error {
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
            .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
            return .timedOut
        case .remoteConnectionClosed:
            return afterHead ? .connectionLost : .badServerResponse
        case .bodyLengthMismatch, .identityCodingIncorrectlyPresent,
            .contentLengthMissing, .invalidProxyResponse:
            return .badServerResponse
        default:
            return .other
        }
    }

    private static func category(of error: IOError, afterHead: Bool) -> TransportFailure.Category {
        switch error.errnoCode {
        case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL: return .cannotConnect
        case ETIMEDOUT: return .timedOut
        case ECONNRESET, EPIPE, ECONNABORTED: return afterHead ? .connectionLost : .badServerResponse
        default: return .other
        }
    }

    private static func category(of error: ChannelError, afterHead: Bool) -> TransportFailure.Category {
        switch error {
        case .connectTimeout: return .timedOut
        case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed:
            return afterHead ? .connectionLost : .badServerResponse
        default: return .other
        }
    }
}
