extension SimpleNetworking {
    /// Makes `request` re-authenticate when it receives `status`: the client refreshes its credentials with
    /// ``authenticate()`` and sends the request again.
    ///
    /// Call it from an ``execute(request:)`` override, before `super`; calling it again for the same request (as
    /// happens on every retry) does nothing. It holds under concurrency:
    /// - however many requests get `status` at once, one ``authenticate()`` runs; the others wait and are retried
    ///   when it succeeds, and all fail at once with its error when it fails;
    /// - a request sent with credentials older than the current ones is retried with the current ones, with no
    ///   new refresh;
    /// - each request is retried once per refresh, and retries count against the request's retry limit;
    /// - requests made inside ``authenticate()`` are never re-authenticated, so a 401 from the authentication
    ///   endpoint cannot recurse;
    /// - refreshes are limited by ``Configuration/refreshLimit`` (default 3 per 60 s);
    /// - cancelling a waiting request removes it from the queue; the others are unaffected.
    ///
    /// Your own handlers for `status` run first and can stop the chain before re-authentication is tried.
    ///
    /// ```swift
    /// final class MyAPI: SimpleNetworking, @unchecked Sendable {
    ///     override func authenticate() async throws {
    ///         let response = try await get("/auth").accept(.json).response()
    ///         defaultHeaders["Authorization"] = response.json?["token"] as? String
    ///     }
    ///
    ///     override func execute(request: SimpleRequest) {
    ///         reauthenticate(request, on: 401)
    ///         super.execute(request: request)
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - request: The request being executed.
    ///   - status: The status that means the credentials are no longer valid. Default: 401.
    public func reauthenticate(_ request: SimpleRequest, on status: Int = 401) {
        guard request.installReauthentication(on: status) else { return }
        request.on(httpStatus: status) { [self] request, _ in
            // A request that authenticate() itself sent is never re-authenticated: its 401 goes on to the handlers.
            guard !request.isAuthenticationExecution else { return true }
            let sentEpoch = request.credentialEpoch
            request.retry(
                after: { [self] () async throws(SimpleNetworkingError) in
                    try await reauthentication.awaitCredentials(newerThan: sentEpoch, client: self).get()
                })
            return false
        }
    }
}

extension SimpleRequest {
    /// Marks `status` as re-authenticated for this request; `false` when it already is.
    func installReauthentication(on status: Int) -> Bool {
        state.withLock { $0.reauthenticationStatuses.insert(status).inserted }
    }
}
