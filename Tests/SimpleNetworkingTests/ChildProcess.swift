import Foundation
import SimpleNetworking

#if os(Linux)
    import Glibc
#endif

/// What a child process left: its exit status and its standard output.
struct ChildExit {
    /// The exit code; 128 plus the signal's number for a child killed by a signal (its timeout).
    let status: Int32
    /// Everything it wrote to standard output, as UTF-8.
    let output: String
}

/// A child process that could not be started.
struct ChildProcessFailure: Error, CustomStringConvertible {
    let description: String
}

/// Runs `executable` with `arguments` in a child process and returns how it exited, awaiting the exit on a thread of
/// its own, never one of the cooperative pool. Its standard output goes to a temporary file, read at the end; its
/// standard error is discarded. A child still running after `timeout` seconds is killed.
///
/// On Linux the child is started with `posix_spawn`, not Foundation's `Process`: the `Process.run()` of
/// swift-corelibs-foundation in Swift 6.3.1 reads past the end of a `/proc/self/fd` directory entry while it closes
/// descriptors, and crashed the test process in its `memcpy` now and then with two busy loops running (1 suite run in
/// 12), also with every start serialized.
func runChild(_ executable: URL, _ arguments: [String], timeout: TimeInterval = 60) async throws -> ChildExit {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).txt")
    defer { try? FileManager.default.removeItem(at: output) }
    let status = try await exitStatus(of: executable, arguments, output: output, timeout: timeout)
    return ChildExit(status: status, output: (try? String(contentsOf: output, encoding: .utf8)) ?? "")
}

#if os(Linux)
    /// Spawns the child with its standard output to `output`, then waits for its exit status.
    private func exitStatus(of executable: URL, _ arguments: [String], output: URL, timeout: TimeInterval)
        async throws -> Int32
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable.path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv + [nil], environ)
        guard spawned == 0 else {
            let reason = String(cString: strerror(spawned))
            throw ChildProcessFailure(description: "cannot start \(executable.path): \(reason)")
        }
        // Reaped under the lock the timeout kills under, so that the timeout never signals a reused process id.
        let reaped = Locked(false)
        let child = pid
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            reaped.withLock { reaped in if !reaped { kill(child, SIGKILL) } }
        }
        return await withCheckedContinuation { continuation in
            Thread {
                var info = siginfo_t()
                while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
                var status: Int32 = 0
                reaped.withLock { reaped in
                    reaped = true
                    while waitpid(child, &status, 0) == -1, errno == EINTR {}
                }
                let signal = status & 0x7f
                continuation.resume(returning: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
            }.start()
        }
    }
#else
    /// Starts the child with Foundation's `Process`, with its standard output to `output`, and awaits its exit.
    private func exitStatus(of executable: URL, _ arguments: [String], output: URL, timeout: TimeInterval)
        async throws -> Int32
    {
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw ChildProcessFailure(description: "cannot create \(output.path)")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        let exited = Locked(false)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in
                exited.set(true)
                continuation.resume()
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            let running = UncheckedProcess(process: process)
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                if !exited.current { running.process.terminate() }
            }
        }
        return process.terminationStatus
    }

    /// `@unchecked Sendable`: `Process.terminate()` may be called from any thread.
    private struct UncheckedProcess: @unchecked Sendable {
        let process: Process
    }
#endif
