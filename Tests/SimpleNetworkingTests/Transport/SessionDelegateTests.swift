import Foundation
import SimpleNetworking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The library's session delegate never holds its lock while FoundationNetworking is called.
///
/// On Linux making and resuming a task wait for the session's work queue, which libcurl can keep busy for seconds;
/// the delegate callbacks, every client's deadline timers and `close()` take the delegate's lock, so holding it
/// meanwhile made them all wait for libcurl, and a loaded machine ran out of threads ("URLSession on Linux" in the
/// documentation).
@Suite("Session delegate")
struct SessionDelegateTests {
    @Test("close() returns at once while a task is being made, and the attempt ends cancelled")
    func closeWhileMakingTask() async throws {
        let delegate = SessionDelegate()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:9/never"))
        let pending = PendingTask()
        let making = Locked(false)
        let released = Locked(false)
        let release = DispatchSemaphore(value: 0)
        let unchecked = UncheckedSession(session: session)
        DispatchQueue.global().async {
            delegate.start(pending) {
                making.set(true)
                // Stands in for libcurl's busy work queue; bounded so that a regression fails instead of hanging, and
                // long enough that a busy machine notices `making` before it passes.
                _ = release.wait(timeout: .now() + 60)
                released.set(true)
                return unchecked.session.dataTask(with: url)
            }
        }
        #expect(await eventually { making.current })

        let tasks = delegate.close()

        // With the lock held while the task was made, close() waited for the 60 s wait to end.
        #expect(!released.current, "close() waited for the task to be made")
        #expect(tasks?.isEmpty == true)
        release.signal()
        guard case .failure(.transportFailed(let failure, _)) = await pending.outcome() else {
            Issue.record("expected a transport failure for an attempt on a closed session")
            return
        }
        #expect(failure.category == .cancelled)
    }
}

/// A session handed to another thread (`URLSession` is thread-safe, but corelibs does not annotate it `Sendable`).
private struct UncheckedSession: @unchecked Sendable {
    let session: URLSession
}
