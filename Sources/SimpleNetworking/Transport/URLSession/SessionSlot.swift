import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session a URLSession transport creates its tasks on: made at the first start, replaced after a response whose
/// framing was invalid, and let go when the transport closes.
///
/// FoundationNetworking keeps one libcurl connection pool per session and closes its connections only when the session
/// is deallocated; there is no way to close one connection. So:
/// - A response with invalid framing (``Malformed/framing(of:)``) retires the session it came on: libcurl may already
///   have taken that response as complete by one of its lengths and put the connection back in its pool, and RFC 9112,
///   section 6.3, says a client must close such a connection. The retired session lets its other tasks finish, is
///   invalidated, and is deallocated with its connections; the next start makes a new session, so no later request can
///   be written on that connection.
/// - ``close()`` hands the session over to be invalidated and keeps no reference to it, so that it is deallocated, and
///   its connections and descriptors closed, while the client itself may still be held.
///
/// A session the caller made is used as it is: it is never replaced (its connections are the caller's), and after
/// ``close()`` it is no longer referenced.
///
/// Only touched on ``SessionDelegate/starts``, where every task is created and every replacement and invalidation is
/// queued: a start reads the session without a lock, and no task is created on a session after it was invalidated
/// (FoundationNetworking traps on that). A retirement is queued there before the attempt that found the invalid
/// framing ends, so its retry, and every request started after it, comes behind the replacement.
final class SessionSlot: @unchecked Sendable {
    // @unchecked Sendable: its state is only touched on `SessionDelegate.starts`, which is serial.
    private var session: URLSession?
    private var closed = false
    /// What a new session is made with; `nil` for a session the caller made, which is never replaced.
    private let configuration: URLSessionConfiguration?
    /// The queue every session of the slot calls its delegate on, shared so that the delegate's state stays on one
    /// serial queue across sessions.
    private let delegateQueue: OperationQueue?

    /// The library's own sessions, made with `configuration` and calling their delegate on `delegateQueue`.
    init(configuration: URLSessionConfiguration, delegateQueue: OperationQueue) {
        self.configuration = configuration
        self.delegateQueue = delegateQueue
    }

    /// A session the caller made, used as it is.
    init(session: URLSession) {
        self.session = session
        configuration = nil
        delegateQueue = nil
    }

    /// The session to create a task on, made with `delegate` if there is none; `nil` once closed. Call it on
    /// ``SessionDelegate/starts``.
    func current(delegate: SessionDelegate) -> URLSession? {
        if let session { return session }
        guard !closed, let configuration else { return nil }
        let made = URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
        session = made
        return made
    }

    /// The session now, without making one (for tests). Waits for ``SessionDelegate/starts``.
    var peek: URLSession? {
        SessionDelegate.starts.sync { session }
    }

    /// Retires `retired`, whose connection carried a response with invalid framing, unless it has already been
    /// replaced or is the caller's: it finishes its other tasks, is invalidated and released, and the next start
    /// makes a new session. Queued on ``SessionDelegate/starts``: call it before the attempt ends.
    func retire(_ retired: URLSession) {
        guard configuration != nil else { return }
        let retired = UncheckedSession(session: retired)
        SessionDelegate.starts.async { [self] in
            guard let session, session === retired.session else { return }
            self.session = nil
            // Returns at once (it is queued on the session's work queue), unlike `invalidateAndCancel()`.
            session.finishTasksAndInvalidate()
        }
    }

    /// Lets the session go for good: later starts get none. Call it on ``SessionDelegate/starts``.
    /// - Returns: The session, to be invalidated (one of the library's) or left to its owner (the caller's).
    func close() -> URLSession? {
        closed = true
        defer { session = nil }
        return session
    }
}

/// A session handed to another thread.
///
/// `@unchecked Sendable`: `URLSession` is thread-safe, but corelibs does not annotate it `Sendable`.
struct UncheckedSession: @unchecked Sendable {
    let session: URLSession
}
