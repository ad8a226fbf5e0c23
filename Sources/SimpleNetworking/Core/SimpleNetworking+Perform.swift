import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension SimpleNetworking {
    /// Sends one attempt through the transport and returns its final response, following redirects by the policy.
    ///
    /// Each hop goes through the transport with what is left of the attempt's timeout, and the body-size limit
    /// applies to every hop. Every step is reported to the event handler, with URLs redacted.
    func perform(_ request: URLRequest, for parts: SimpleRequest.Parts) async throws(SimpleNetworkingError)
        -> SimpleResponse
    {
        let options = transportOptions(for: parts)
        let requestID = parts.safety.requestID
        let deadline = Date().addingTimeInterval(options.timeout)
        let policy = parts.safety.redirectPolicy ?? configuration.redirectPolicy
        var chain = RedirectChain(original: request, policy: policy, sensitiveData: sensitiveData)
        var current = request
        while true {
            let response: SimpleResponse
            do throws(SimpleNetworkingError) {
                var hopOptions = options
                hopOptions.timeout = deadline.timeIntervalSinceNow
                guard hopOptions.timeout > 0 else { throw .transportFailed(URLError(.timedOut)) }
                emit(.willSend, for: current, requestID: requestID)
                response = try await transport.send(current, options: hopOptions)
                guard response.body.count <= options.maximumResponseBodySize else {
                    throw .responseTooLarge(limit: options.maximumResponseBodySize)
                }
            } catch {
                emit(.failed(error), for: current, requestID: requestID)
                throw error
            }
            emit(.didReceiveResponse(statusCode: response.statusCode), for: current, requestID: requestID)
            let step: RedirectChain.Step
            do throws(SimpleNetworkingError) {
                step = try chain.step(after: response, to: current)
            } catch {
                if case .redirectRefused(let reason) = error {
                    emit(
                        .redirectRefused(statusCode: response.statusCode, reason: reason), for: current,
                        requestID: requestID)
                } else if case .tooManyRedirects = error {
                    emit(
                        .redirectRefused(statusCode: response.statusCode, reason: "the redirect limit was reached"),
                        for: current, requestID: requestID)
                }
                emit(.failed(error), for: current, requestID: requestID)
                throw error
            }
            switch step {
            case .deliver:
                return response
            case .follow(let next, let hop):
                let data = sensitiveData
                emit(
                    .redirectFollowed(from: data.redact(hop.from), to: data.redact(hop.to), statusCode: hop.statusCode),
                    for: current, requestID: requestID)
                current = next
            }
        }
    }
}
