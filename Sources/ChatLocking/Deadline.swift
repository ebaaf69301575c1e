/// Runs `work` against a deadline without waiting for work that overstays it.
///
/// Whichever settles first wins: `work`'s result (value or error), or, once `deadline` has
/// passed, `onTimeout`'s; the other is cancelled and not waited for. A task group would wait for
/// every child, so a handler that ignores cancellation, or a connection pool slow to give up an
/// attempt, would hold the answer back until it ended. `work` keeps running while `onTimeout`
/// works out its answer (it may ask why the work is slow) and wins if it finishes meanwhile.
/// Cancelling the caller settles at once with `CancellationError` and cancels both.
package func withDeadline<Value: Sendable>(
    _ deadline: Duration, _ work: @escaping @Sendable () async throws -> Value,
    onTimeout: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let pending = Locked<CheckedContinuation<Value, any Error>?>(nil)
    let tasks = Locked<[Task<Void, Never>]>([])
    @Sendable func settle(_ result: Result<Value, any Error>) {
        let continuation = pending.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }
        guard let continuation else { return }
        for task in tasks.withLock({ $0 }) { task.cancel() }
        continuation.resume(with: result)
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0 = continuation }
            // Cancelled before the continuation was there for `onCancel` to settle.
            if Task.isCancelled { return settle(.failure(CancellationError())) }
            let running = Task {
                do { settle(.success(try await work())) } catch { settle(.failure(error)) }
            }
            let timer = Task {
                guard (try? await Task.sleep(for: deadline)) != nil else { return }
                do { settle(.success(try await onTimeout())) } catch { settle(.failure(error)) }
            }
            tasks.withLock { $0 = [running, timer] }
            // Either may have settled before the tasks were listed, and so not cancelled the other.
            if pending.withLock({ $0 == nil }) {
                running.cancel()
                timer.cancel()
            }
        }
    } onCancel: {
        settle(.failure(CancellationError()))
    }
}
