import Foundation
import SimpleNetworking
import Testing

/// The retry decision as a table: what an attempt ended with, what was asked, the policy, the limit, the deadline
/// and the budget, against the verdict (<doc:HowARequestRuns>).
@Suite("The retry decision")
struct RetryDecisionTests {
    /// What a row expects.
    enum Expected: Equatable {
        /// Another attempt after `delay`, counted against the limit or not.
        case retry(delay: TimeInterval, counted: Bool)
        /// The handlers see this status (a response) or this error.
        case deliverStatus(Int)
        case deliverError(String)
        /// The execution ends with this error; `errorHandlers`: they have yet to see it.
        case finishError(String, errorHandlers: Bool)
        case finishStatus(Int)
    }

    /// One row: the attempt's ending and the execution so far.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int? = 200
        var error: SimpleNetworkingError?
        var requested: Bool = false
        var requestedCounts = true
        var stopped = false
        var cancelled = false
        var streamedBody = false
        var method: HTTPMethod = .get
        var policy = RetryPolicy.default
        var attempts = 1
        var handlerRetries = 0
        var limit = 3
        /// Seconds since the execution started, against `deadline`.
        var elapsed: TimeInterval = 0
        var deadline: TimeInterval?
        var budget = true
        var expected: Expected
        /// Whether the budget is asked (a token taken).
        var asksBudget = false

        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "a 2xx is delivered", expected: .deliverStatus(200)),
        Row(
            name: "a 2xx past the deadline delivers deadlineExceeded", elapsed: 5, deadline: 5,
            expected: .deliverError("deadlineExceeded")),
        Row(name: "a 404 is not retried by the policy", status: 404, expected: .deliverStatus(404)),
        Row(
            name: "a 503 to a GET is retried by the policy, with a budget token", status: 503,
            expected: .retry(delay: 0.25, counted: false), asksBudget: true),
        Row(name: "a 503 to a POST is not retried", status: 503, method: .post, expected: .deliverStatus(503)),
        Row(
            name: "a 503 without a budget token is delivered", status: 503, budget: false,
            expected: .deliverStatus(503), asksBudget: true),
        Row(
            name: "a 503 after the policy's last attempt is delivered", status: 503, attempts: 3,
            expected: .deliverStatus(503)),
        Row(
            name: "a 503 whose wait would pass the deadline is delivered", status: 503, elapsed: 9.9, deadline: 10,
            expected: .deliverStatus(503)),
        Row(
            name: "a 503 whose wait ends before the deadline is retried", status: 503, elapsed: 9, deadline: 10,
            expected: .retry(delay: 0.25, counted: false), asksBudget: true),
        Row(
            name: "a 503 with RetryPolicy.never is delivered", status: 503, policy: .never,
            expected: .deliverStatus(503)),
        Row(
            name: "a 503 of a stream that handed part of its body over is delivered", status: 503,
            streamedBody: true, expected: .deliverStatus(503)),
        Row(
            name: "a handler's retry is taken and counted", status: 401, requested: true,
            expected: .retry(delay: 0, counted: true)),
        Row(
            name: "a handler's retry wins over a status handler's stop", status: 401, requested: true, stopped: true,
            expected: .retry(delay: 0, counted: true)),
        Row(
            name: "a handler's retry wins over the policy", status: 503, requested: true,
            expected: .retry(delay: 0, counted: true)),
        Row(
            name: "a handler's retry past the limit ends with retryLimitExceeded", status: 401, requested: true,
            handlerRetries: 3, expected: .finishError("retryLimitExceeded", errorHandlers: true)),
        Row(
            name: "a retry that does not count is taken past the limit", status: 401, requested: true,
            requestedCounts: false, handlerRetries: 3, expected: .retry(delay: 0, counted: false)),
        Row(
            name: "a status handler's stop ends without error handlers", status: 401, stopped: true,
            expected: .finishError("stoppedByHandler", errorHandlers: false)),
        Row(
            name: "a cancelled execution delivers cancelled, whatever was asked", status: 503, requested: true,
            cancelled: true, expected: .deliverError("cancelled")),
        Row(
            name: "a transport failure of a GET is not retried by default when it is a cancellation", status: nil,
            error: .cancelled, expected: .deliverError("cancelled")),
        Row(
            name: "a handler's retry past the deadline is still taken (the wait and the attempt check it)",
            status: 401, requested: true, elapsed: 11, deadline: 10, expected: .retry(delay: 0, counted: true)),
    ]

    @Test("Each ending leads to one verdict", arguments: rows)
    func verdict(_ row: Row) {
        let start = Date(timeIntervalSince1970: 1_000_000)
        var record = SimpleRequest.ExecutionRecord(
            attempts: row.attempts, handlerRetries: row.handlerRetries, startedAt: start, deadline: row.deadline)
        let rules = RetryDecision.Rules(policy: row.policy, method: row.method, headers: [:], limit: row.limit)
        let outcome: SimpleRequest.Outcome =
            if let status = row.status { .success(SimpleResponse(statusCode: status)) } else {
                .failure(row.error ?? .cancelled)
            }
        let ending = RetryDecision.Ending(
            outcome: outcome,
            requested: row.requested ? SimpleRequest.Retry(countsAgainstLimit: row.requestedCounts) : nil,
            stopped: row.stopped, cancelled: row.cancelled, streamedBody: row.streamedBody,
            clock: Self.clock(at: start.addingTimeInterval(row.elapsed)))
        var askedBudget = false
        let verdict = RetryDecision.afterAttempt(
            ending, rules: rules, record: &record, random: { 0.5 },
            takeToken: { _ in
                #expect(!askedBudget, "the budget is asked once")
                askedBudget = true
                return row.budget
            })
        #expect(Self.describe(verdict) == row.expected)
        #expect(askedBudget == row.asksBudget)
        if case .retry(delay: _, counted: true) = row.expected {
            #expect(record.handlerRetries == row.handlerRetries + 1)
        }
        if case .finishError("retryLimitExceeded", _) = row.expected { #expect(record.exhausted) }
    }

    /// What a row of ``beforeEnd(with:errorHandlers:requested:cancelled:rules:record:)`` expects.
    struct EndRow: Sendable, CustomTestStringConvertible {
        var name: String
        var requested = true
        var cancelled = false
        var exhausted = false
        var handlerRetries = 0
        var errorHandlers = false
        var expected: Expected
        var testDescription: String { name }
    }

    static let endRows: [EndRow] = [
        EndRow(name: "nothing asked: the execution ends", requested: false, expected: .finishStatus(200)),
        EndRow(name: "a retry asked by a success or error handler is taken", expected: .retry(delay: 0, counted: true)),
        EndRow(name: "a retry asked after cancellation is refused", cancelled: true, expected: .finishStatus(200)),
        EndRow(
            name: "a retry after the limit was reported is refused", exhausted: true, errorHandlers: true,
            expected: .finishStatus(200)),
        EndRow(
            name: "a retry past the limit ends with retryLimitExceeded", handlerRetries: 3,
            expected: .finishError("retryLimitExceeded", errorHandlers: true)),
    ]

    @Test("As the execution ends, a retry asked for meanwhile is taken or refused", arguments: endRows)
    func beforeEnd(_ row: EndRow) {
        var record = SimpleRequest.ExecutionRecord(handlerRetries: row.handlerRetries, exhausted: row.exhausted)
        let rules = RetryDecision.Rules(policy: .default, method: .get, headers: [:], limit: 3)
        let verdict = RetryDecision.beforeEnd(
            with: .success(SimpleResponse(statusCode: 200)), errorHandlers: row.errorHandlers,
            requested: row.requested ? SimpleRequest.Retry(countsAgainstLimit: true) : nil, cancelled: row.cancelled,
            rules: rules, record: &record)
        #expect(Self.describe(verdict) == row.expected)
        if case .finish(_, let errorHandlers) = verdict, row.expected == .finishStatus(200) {
            #expect(errorHandlers == row.errorHandlers)
        }
    }

    @Test("Before an attempt: cancelled first, then the deadline")
    func beforeAttempt() {
        let start = Date(timeIntervalSince1970: 1_000_000)
        let record = SimpleRequest.ExecutionRecord(startedAt: start, deadline: 2)
        let name = { (error: SimpleNetworkingError?) in error.map(Self.name) }
        #expect(
            name(RetryDecision.beforeAttempt(record: record, clock: Self.clock(at: start), cancelled: false)) == nil)
        #expect(
            name(RetryDecision.beforeAttempt(record: record, clock: Self.clock(at: start), cancelled: true))
                == "cancelled")
        let late = start.addingTimeInterval(2)
        #expect(
            name(RetryDecision.beforeAttempt(record: record, clock: Self.clock(at: late), cancelled: false))
                == "deadlineExceeded")
        #expect(
            name(RetryDecision.beforeAttempt(record: record, clock: Self.clock(at: late), cancelled: true))
                == "cancelled")
    }

    /// A clock stopped at `date`.
    static func clock(at date: Date) -> SimpleClock {
        SimpleClock(now: { date }, sleep: { _ in })
    }

    /// A verdict as a row's expectation.
    static func describe(_ verdict: RetryDecision.Verdict) -> Expected {
        switch verdict {
        case .retry(let retry): return .retry(delay: retry.delay, counted: retry.countsAgainstLimit)
        case .deliver(.success(let response)): return .deliverStatus(response.statusCode)
        case .deliver(.failure(let error)): return .deliverError(name(error))
        case .finish(.success(let response), _): return .finishStatus(response.statusCode)
        case .finish(.failure(let error), let errorHandlers):
            return .finishError(name(error), errorHandlers: errorHandlers)
        }
    }

    /// An error's case name.
    static func name(_ error: SimpleNetworkingError) -> String {
        switch error {
        case .cancelled: "cancelled"
        case .deadlineExceeded: "deadlineExceeded"
        case .stoppedByHandler: "stoppedByHandler"
        case .retryLimitExceeded: "retryLimitExceeded"
        default: "\(error)"
        }
    }
}
