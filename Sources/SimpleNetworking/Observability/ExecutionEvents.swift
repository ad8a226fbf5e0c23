import Foundation

/// The events about one execution as a whole, which the execution loop reports: its start and finish, and the retries
/// and waits between its attempts. The hops report their own (``SimpleNetworking/perform(_:for:destination:signal:timer:)``).
///
/// Made only when the execution's client is observed (``SimpleNetworking/isObserved``), so that an execution nobody
/// listens to builds no URL and reads no clock for them.
struct ExecutionEvents: Sendable {
    let requestID: UUID
    let method: HTTPMethod
    /// The request's URL as built when the execution started, redacted; `(no URL)` when it cannot be built.
    let url: String
    /// When the execution started, by the client's clock.
    let start: Date

    /// The events of an execution of the request with `parts` that starts now on `client`, or `nil` when nothing
    /// listens to `client`'s events.
    init?(for parts: SimpleRequest.Parts, on client: SimpleNetworking) {
        guard client.isObserved else { return nil }
        requestID = parts.safety.requestID
        method = parts.method
        url = client.sensitiveData.redact(try? client.makeURL(for: parts, base: client.baseURLSource.current).0)
        start = client.configuration.clock.now()
    }

    /// Reports `kind` to `client`'s listeners, dated `date`, or now.
    func report(_ kind: NetworkEvent.Kind, on client: SimpleNetworking, date: Date? = nil) {
        guard client.isObserved else { return }
        let date = date ?? client.configuration.clock.now()
        client.deliver(NetworkEvent(kind, requestID: requestID, method: method, url: url, date: date))
    }

    /// Reports the start, dated when the execution started.
    func started(on client: SimpleNetworking) {
        report(.started, on: client, date: start)
    }

    /// Reports the end of the execution with `outcome`, and its duration since ``start``.
    func finished(with outcome: SimpleRequest.Outcome, on client: SimpleNetworking) {
        let end = client.configuration.clock.now()
        let duration = end.timeIntervalSince(start)
        switch outcome {
        case .success(let response):
            report(.finished(statusCode: response.statusCode, error: nil, duration: duration), on: client, date: end)
        case .failure(let error):
            let reduced = error.reducedForEvents(client.sensitiveData)
            report(
                .finished(statusCode: error.response?.statusCode, error: reduced, duration: duration), on: client,
                date: end)
        }
    }
}

extension SimpleNetworkingError {
    /// This error with any response it carries reduced to its status and redacted URL, so that an event holds no
    /// header value and no body; its description stays the same.
    func reducedForEvents(_ sensitiveData: SensitiveData) -> SimpleNetworkingError {
        func reduce(_ response: SimpleResponse) -> SimpleResponse {
            SimpleResponse(statusCode: response.statusCode, url: response.url.flatMap(sensitiveData.redactedURL))
        }
        switch self {
        case .unacceptableStatus(let response): return .unacceptableStatus(reduce(response))
        case .unacceptableContentType(let response, let acceptable):
            // Its Content-Type stays, for the description: a media type, never a secret.
            let reduced = SimpleResponse(
                statusCode: response.statusCode,
                headers: response.headers["Content-Type"].map { ["Content-Type": $0] } ?? [:],
                url: response.url.flatMap(sensitiveData.redactedURL))
            return .unacceptableContentType(reduced, acceptable: acceptable)
        case .errorBody(let body, let response): return .errorBody(body, response: reduce(response))
        case .decodingFailed(let type, let reason, let response):
            return .decodingFailed(type: type, reason: reason, response: response.map(reduce))
        case .transformFailed(let underlying, let response):
            return .transformFailed(underlying: underlying, response: reduce(response))
        case .retryLimitExceeded(let attempts, let response):
            return .retryLimitExceeded(attempts: attempts, response: response.map(reduce))
        case .stoppedByHandler(let response): return .stoppedByHandler(reduce(response))
        case .notAnEventStream(let response): return .notAnEventStream(reduce(response))
        case .invalidURL, .invalidRequest, .transportFailed, .cancelled, .requestInProgress, .responseTooLarge,
            .redirectRefused, .tooManyRedirects, .authenticationFailed, .deadlineExceeded, .fileFailed,
            .streamBufferFull, .eventTooLarge, .eventStreamIdle, .unsupportedByTransport:
            return self
        }
    }
}
