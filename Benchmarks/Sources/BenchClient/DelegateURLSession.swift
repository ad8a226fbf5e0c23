import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The tuned URLSession driven through a session delegate, as the library drives it: data tasks whose bodies the
/// delegate collects, one continuation per task. The floor the library's URLSession transport is measured against.
final class DelegateURLSession: NSObject, Client, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `pending` is only touched with `lock` held; URLSession is thread-safe.
    private struct Pending {
        var continuation: CheckedContinuation<Int, any Error>
        var body = Data()
    }

    private let url: URL
    private let lock = NSLock()
    private var pending: [Int: Pending] = [:]
    private var session: URLSession?

    init(url: URL) {
        self.url = url
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: tunedConfiguration(), delegate: self, delegateQueue: queue)
    }

    func fetch() async throws -> Int {
        guard let session else { throw BenchError.status }
        return try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: URLRequest(url: url))
            lock.withLock { pending[task.taskIdentifier] = Pending(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { pending[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let done = lock.withLock({ pending.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error { return done.continuation.resume(throwing: error) }
        guard (task.response as? HTTPURLResponse)?.statusCode == 200 else {
            return done.continuation.resume(throwing: BenchError.status)
        }
        done.continuation.resume(returning: done.body.count)
    }

    func close() async { session?.invalidateAndCancel() }
}
