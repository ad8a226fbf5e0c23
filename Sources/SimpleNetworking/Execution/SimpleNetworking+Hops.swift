import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The hops of one attempt: the request, then each redirect the client follows by its own rules.
///
/// Every hop passes through two places, and per-hop features belong there: ``finalizeHop(_:requestID:)``, the last
/// look at a hop's outgoing request, and ``receiveHop(_:for:options:requestID:)``, the first look at its response.
/// The "How a request runs" article in the documentation shows where they sit in an execution.
extension SimpleNetworking {
    /// Sends one attempt through the transport and returns its final response, following redirects by the policy.
    ///
    /// Each hop goes through the transport with what is left of the attempt's timeout, and the body-size limit
    /// applies to every hop. Every step is reported to the event handler, with URLs redacted.
    ///
    /// With a `destination` (a download, a response stream), a progress handler or a body file, each hop's transfer
    /// is a `HopReceiver`: the body of a 2xx goes to `destination` as it arrives, with no size limit unless the
    /// request sets one, and other bodies to memory as usual. A transport whose ``HTTPTransport/capabilities`` lack
    /// what that needs is refused before anything is sent.
    /// - Parameters:
    ///   - signal: Cancels the hops as well as the calling task does, for an execution that runs in its caller's
    ///     task.
    ///   - timer: Marks each hop's start, response head and body end, when something listens to events.
    func perform(
        _ request: HTTPRequest, for parts: SimpleRequest.Parts, destination: (any ResponseDestination)? = nil,
        signal: CancellationSignal? = nil, timer: AttemptTimer? = nil
    ) async throws(SimpleNetworkingError) -> SimpleResponse {
        var options = transportOptions(for: parts)
        let memoryLimit = options.maximumResponseBodySize
        if destination != nil { options.maximumResponseBodySize = parts.safety.maximumResponseBodySize ?? .max }
        let streams = destination != nil || parts.progress != nil || request.bodyFile != nil
        if streams { try requireCapabilities(downloads: destination != nil || parts.progress != nil, request: request) }
        let requestID = parts.safety.requestID
        let clock = configuration.clock
        let deadline = clock.now().addingTimeInterval(options.timeout)
        // Made at the first redirect: most requests have none.
        var chain: RedirectChain?
        var current = request
        while true {
            let response: SimpleResponse
            do throws(SimpleNetworkingError) {
                var hopOptions = options
                hopOptions.timeout = deadline.timeIntervalSince(clock.now())
                guard hopOptions.timeout > 0 else { throw .transportFailed(TransportFailure(URLError(.timedOut))) }
                // The redirect rules work on the request before its jar cookies: each hop gets the jar's own.
                if tlsShortfall != nil { try refuseUnenforcedTLS(current) }
                let sent = finalizeHop(current, requestID: requestID)
                timer?.hopStarted()
                if streams {
                    let hop = HopReceiver(
                        destination: destination, memoryLimit: memoryLimit, progress: parts.progress,
                        queue: configuration.handlerQueue, timer: timer)
                    response = hop.finish(
                        try await transport.send(sent, options: hopOptions, transfer: hop.transfer(signal: signal)))
                } else {
                    response = try await transport.collect(sent, options: hopOptions, signal: signal, timer: timer)
                }
                timer?.bodyEnded()
                try receiveHop(response, for: sent, options: options, requestID: requestID)
            } catch {
                // The platform error of a transport failure keeps the URL with its secrets: see `redact(_:)`.
                let error = sensitiveData.redact(error)
                emit(.failed(error), for: current, requestID: requestID)
                throw error
            }
            guard response.isRedirection else { return response }
            var redirects =
                chain
                ?? RedirectChain(
                    original: request, policy: parts.safety.redirectPolicy ?? configuration.redirectPolicy,
                    sensitiveData: sensitiveData)
            let step = try nextHop(after: response, to: current, in: &redirects, requestID: requestID)
            chain = redirects
            switch step {
            case .deliver:
                return response
            case .follow(let next, _):
                current = next
            }
        }
    }

    /// The transport's options for an attempt of `parts`, whose timeout the attempt has already worked out and
    /// clipped to the deadline: a value at or below zero is what is left of a deadline that has just passed, and the
    /// attempt times out at once.
    private func transportOptions(for parts: SimpleRequest.Parts) -> TransportOptions {
        TransportOptions(
            timeout: parts.timeout ?? attemptTimeout,
            maximumResponseBodySize: parts.safety.maximumResponseBodySize ?? configuration.maximumResponseBodySize,
            tls: configuration.tls)
    }

    /// Refuses a streamed feature on a transport that cannot stream it, rather than let it hold a body in memory.
    private func requireCapabilities(downloads: Bool, request: HTTPRequest) throws(SimpleNetworkingError) {
        let capabilities = transport.capabilities
        if downloads, !capabilities.contains(.streamsResponseBody) {
            throw .unsupportedByTransport(
                reason: "\(type(of: transport)) cannot stream response bodies, which downloads, response streams and "
                    + "progress need")
        }
        if request.bodyFile != nil, !capabilities.contains(.streamsRequestBody) {
            throw .unsupportedByTransport(reason: "\(type(of: transport)) cannot stream a request body from a file")
        }
    }

    /// The last step before a hop's request goes on the wire: the jar's cookies for the hop's own URL join a
    /// `Cookie` header the caller set (which the redirect rules drop once the chain leaves the origin).
    func finalizeHop(_ request: HTTPRequest, requestID: UUID) -> HTTPRequest {
        var request = request
        if let jarCookies = cookieJar?.cookieHeader(for: request.url) {
            let own = request.headers.values(for: "Cookie").filter { !$0.isEmpty }
            request.headers["Cookie"] = (own + [jarCookies]).joined(separator: "; ")
        }
        if isObserved { emit(.willSend, for: request, requestID: requestID) }
        return request
    }

    /// The first look at a hop's response, before redirect rules and handlers see it: the jar stores its
    /// `Set-Cookie` fields.
    /// - Throws: ``SimpleNetworkingError/responseTooLarge(limit:)`` when the transport returned more than the limit.
    func receiveHop(_ response: SimpleResponse, for request: HTTPRequest, options: TransportOptions, requestID: UUID)
        throws(SimpleNetworkingError)
    {
        guard response.body.count <= options.maximumResponseBodySize else {
            throw .responseTooLarge(limit: options.maximumResponseBodySize)
        }
        cookieJar?.receive(setCookie: response.headers.values(for: "Set-Cookie"), from: request.url)
        if isObserved { emit(.didReceiveResponse(statusCode: response.statusCode), for: request, requestID: requestID) }
    }

    /// Applies the redirect rules to a hop's response, reporting what they decided.
    private func nextHop(
        after response: SimpleResponse, to request: HTTPRequest, in chain: inout RedirectChain, requestID: UUID
    ) throws(SimpleNetworkingError) -> RedirectChain.Step {
        let step: RedirectChain.Step
        do throws(SimpleNetworkingError) {
            step = try chain.step(after: response, to: request)
        } catch {
            switch error {
            case .redirectRefused(let reason):
                emit(
                    .redirectRefused(statusCode: response.statusCode, reason: reason), for: request,
                    requestID: requestID)
            case .tooManyRedirects:
                emit(
                    .redirectRefused(statusCode: response.statusCode, reason: "the redirect limit was reached"),
                    for: request, requestID: requestID)
            default:
                break
            }
            emit(.failed(error), for: request, requestID: requestID)
            throw error
        }
        if case .follow(_, let hop) = step {
            emit(
                .redirectFollowed(
                    from: sensitiveData.redact(hop.from), to: sensitiveData.redact(hop.to), statusCode: hop.statusCode),
                for: request, requestID: requestID)
        }
        return step
    }
}
