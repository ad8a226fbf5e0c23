import Testing

@Suite("Event streams over loopback, on the URLSession transport")
struct EventStreamTests {
    let scenarios = EventStreamScenarios(makeTransport: { _ in nil })

    @Test("Events arrive in order, with ids, types and multi-line data; the request accepts them")
    func deliversEventsInOrder() async throws {
        try await scenarios.deliversEventsInOrder()
    }

    @Test("A POST with a JSON body decodes each event with the client's decoder and ends on [DONE], closing it")
    func decodesJSONUntilTheSentinel() async throws {
        try await scenarios.decodesJSONUntilTheSentinel()
    }

    @Test("Data that does not decode throws decodingFailed with the response and closes the connection")
    func dataThatDoesNotDecodeThrows() async throws {
        try await scenarios.dataThatDoesNotDecodeThrows()
    }

    @Test("A dropped or ended GET stream reconnects after the server's retry time with Last-Event-ID, until a 204")
    func reconnectsWithLastEventIDAfterTheRetryTime() async throws {
        try await scenarios.reconnectsWithLastEventIDAfterTheRetryTime()
    }

    @Test("An event ID that is no valid header value is not sent as Last-Event-ID, and the stream goes on")
    func anIDThatIsNoHeaderValueIsNotSent() async throws {
        try await scenarios.anIDThatIsNoHeaderValueIsNotSent()
    }

    @Test("A POST stream does not reconnect unless its options ask, then waits the default reconnection time")
    func aPostReconnectsOnlyWhenAsked() async throws {
        try await scenarios.aPostReconnectsOnlyWhenAsked()
    }

    @Test("Failed reconnections back off with the policy's jittered backoff from the client's clock and random source")
    func failedReconnectionsBackOffWithJitterWithinThePolicy() async throws {
        try await scenarios.failedReconnectionsBackOffWithJitterWithinThePolicy()
    }

    @Test("Reconnections that keep failing stop at the policy's attempt limit with the transport failure")
    func failedReconnectionsStopAtThePolicyLimit() async throws {
        try await scenarios.failedReconnectionsStopAtThePolicyLimit()
    }

    @Test("A 401 while reconnecting re-authenticates once through execute(request:) and resumes from Last-Event-ID")
    func reauthenticatesOnA401WhileReconnecting() async throws {
        try await scenarios.reauthenticatesOnA401WhileReconnecting()
    }

    @Test("A 204 stops the stream with notAnEventStream, which carries it, and does not reconnect")
    func stopsOnNoContent() async throws {
        try await scenarios.stopsOnNoContent()
    }

    @Test("A status outside 2xx stops the stream with unacceptableStatus and no reconnection")
    func stopsOnAStatusOutside2xx() async throws {
        try await scenarios.stopsOnAStatusOutside2xx()
    }

    @Test("A 2xx that is not text/event-stream stops the stream with notAnEventStream carrying the response")
    func stopsOnAResponseThatIsNotAnEventStream() async throws {
        try await scenarios.stopsOnAResponseThatIsNotAnEventStream()
    }

    @Test("Leaving the loop closes the connection: the server sees it closed")
    func leavingTheLoopClosesTheConnection() async throws {
        try await scenarios.leavingTheLoopClosesTheConnection()
    }

    @Test("Cancelling the reading task throws cancelled and closes the connection")
    func cancellingTheTaskClosesTheConnection() async throws {
        try await scenarios.cancellingTheTaskClosesTheConnection()
    }

    @Test("An event past the maximum size throws eventTooLarge after the events before it and closes the connection")
    func anEventPastTheMaximumSizeThrows() async throws {
        try await scenarios.anEventPastTheMaximumSizeThrows()
    }

    @Test("A stream that outlasts the attempt timeout is not ended by it")
    func theAttemptTimeoutDoesNotEndAHealthyStream() async throws {
        try await scenarios.theAttemptTimeoutDoesNotEndAHealthyStream()
    }

    @Test("A connection silent for the idle timeout is closed and the stream reconnects with Last-Event-ID")
    func aSilentConnectionIsClosedAndReconnected() async throws {
        try await scenarios.aSilentConnectionIsClosedAndReconnected()
    }

    @Test("A silent connection of a stream that does not reconnect fails with eventStreamIdle")
    func aSilentConnectionFailsWhenNotReconnecting() async throws {
        try await scenarios.aSilentConnectionFailsWhenNotReconnecting()
    }

    @Test("The request timeout still bounds the wait for the response to begin")
    func theRequestTimeoutBoundsTheStartOfTheStream() async throws {
        try await scenarios.theRequestTimeoutBoundsTheStartOfTheStream()
    }

    @Test("on(event:) handlers see each event across reconnections, then the completion handlers run once")
    func handlersSeeEachEventThenTheEnd() async throws {
        try await scenarios.handlersSeeEachEventThenTheEnd()
    }

    @Test("cancel() stops an executed stream: error handlers get cancelled, completion runs once")
    func cancelStopsAnExecutedStream() async throws {
        try await scenarios.cancelStopsAnExecutedStream()
    }
}
