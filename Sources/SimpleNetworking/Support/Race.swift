import Foundation

/// The result of ``race(_:clock:_:)``.
enum Raced<Value: Sendable>: Sendable {
    case done(Value)
    case deadline
}

/// Runs `body`, unless `seconds` pass first on `clock`; then `body` is cancelled and the result is `.deadline`.
/// With no limit (`nil`), it simply awaits `body`.
func race<Value: Sendable>(
    _ seconds: TimeInterval?, clock: SimpleClock, _ body: @escaping @Sendable () async -> Value
) async -> Raced<Value> {
    guard let seconds else { return .done(await body()) }
    guard seconds > 0 else { return .deadline }
    return await withTaskGroup(of: Raced<Value>?.self) { group in
        group.addTask { .done(await body()) }
        group.addTask {
            do { try await clock.sleep(seconds) } catch { return nil }
            return .deadline
        }
        defer { group.cancelAll() }
        while let next = await group.next() {
            if let next { return next }
        }
        return .deadline
    }
}
