import CLibFuzzer
import Dispatch
import Foundation

/// A fuzz target: an `@main` type whose ``check(_:)`` takes one input; the protocol gives it the `main()` that runs
/// libFuzzer. See ``Fuzzer``.
public protocol FuzzTarget {
    /// Checks one input; a broken invariant crashes through ``Fuzzer/require(_:_:file:line:)``.
    /// - Parameter input: The input libFuzzer made.
    static func check(_ input: FuzzInput)
}

extension FuzzTarget {
    /// Runs libFuzzer with this target's ``check(_:)``, and exits with libFuzzer's status.
    public static func main() {
        Fuzzer.target = check
        Fuzzer.run { data, count in
            Fuzzer.target?(FuzzInput(data, count))
            return 0
        }
    }
}

/// The libFuzzer driver and the checks every target shares.
///
/// A target is an `@main` type that conforms to ``FuzzTarget``: its `check` takes one input and states its invariant
/// with ``require(_:_:)``; the `main()` the protocol gives it runs libFuzzer:
///
/// ```swift
/// @main
/// enum FuzzExample: FuzzTarget {
///     static func check(_ input: FuzzInput) {
///         Fuzzer.require(!input.text.isEmpty || input.bytes.isEmpty, "text of empty bytes is empty")
///     }
/// }
/// ```
public enum Fuzzer {
    /// The target's check, set once by ``FuzzTarget/main()`` before libFuzzer starts: the C callback cannot capture
    /// it, so it reads it from here.
    nonisolated(unsafe) static var target: ((FuzzInput) -> Void)?

    /// The base URL of the clients the targets build (`https://api.example.com/v1`); nothing is ever sent there.
    public static let exampleBaseURL: URL = {
        guard let url = URL(string: "https://api.example.com/v1") else { fatalError("the base URL does not parse") }
        return url
    }()

    /// What libFuzzer calls with each input: its bytes and their count; it returns 0.
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs libFuzzer with this process's arguments (a corpus directory, a crash file, `-max_total_time=30`, ...),
    /// calling `callback` with each input, and exits with libFuzzer's status.
    /// - Parameter callback: Checks one input. A C function pointer: it cannot capture, so it calls a static method.
    public static func run(_ callback: Callback) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
    }

    /// Crashes, so that libFuzzer reports the input, unless `condition` holds.
    /// - Parameters:
    ///   - condition: The invariant, evaluated on this input.
    ///   - invariant: The invariant's name and what broke it; printed with the crash. Never an input's secret: fuzz
    ///     inputs have none, but keep messages short.
    public static func require(
        _ condition: Bool, _ invariant: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        if !condition { fatalError("invariant failed: \(invariant())", file: file, line: line) }
    }

    /// Runs `operation` on the concurrency pool and blocks this thread until it returns.
    ///
    /// For harnesses only: libFuzzer calls targets synchronously on its own thread, which is never a pool thread,
    /// so blocking it cannot starve the pool.
    /// - Parameter operation: The work, such as sending a request through a `MockTransport`.
    /// - Returns: What `operation` returns.
    public static func wait<Result: Sendable>(_ operation: @escaping @Sendable () async -> Result) -> Result {
        let box = ResultBox<Result>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await operation()
            done.signal()
        }
        done.wait()
        guard let value = box.value else { fatalError("the operation ended without a result") }
        return value
    }
}

/// Carries a result from the task to the waiting thread.
private final class ResultBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is written once by the task before it signals the semaphore, and read by the
    // waiting thread only after the signal, which orders the two.
    var value: Value?
}
