import Dispatch
import Foundation
import SimpleNetworkingTesting
import Testing

@Suite("The lateness meter")
struct LatenessMeterTests {
    /// Runs each job on one serial queue, which a test can hold up.
    private final class QueueExecutor: TaskExecutor {
        let queue = DispatchQueue(label: "LatenessMeterTests")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    @Test("A tick held up by a busy thread counts as lateness, also while it is still held at the stop")
    func heldTickCounts() async throws {
        let executor = QueueExecutor()
        let start = Date()
        let meter = LatenessMeter(on: executor)
        try await Task.sleep(nanoseconds: 100_000_000)
        // The tick's thread is busy for 0.5 s: the tick due meanwhile ends that much late, as it would with every
        // thread of the cooperative pool held.
        executor.queue.async { usleep(500_000) }
        try await Task.sleep(nanoseconds: 300_000_000)
        let late = meter.stop()  // while the queue is still held
        let elapsed = Date().timeIntervalSince(start)
        #expect(late >= 0.2, "\(late) s late")
        #expect(late <= elapsed, "\(late) s late in \(elapsed) s")
    }

    @Test("A meter that ran free counts no more than the time it ran")
    func freeMeter() async throws {
        let start = Date()
        let meter = LatenessMeter()
        try await Task.sleep(nanoseconds: 300_000_000)
        let late = meter.stop()
        let elapsed = Date().timeIntervalSince(start)
        #expect(late >= 0 && late < elapsed, "\(late) s late in \(elapsed) s")
        #expect(meter.stop() == late, "a second stop adds nothing")
    }
}
