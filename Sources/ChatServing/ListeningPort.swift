import ChatLocking

/// The port the server is bound to, and the callers waiting to learn it: they get the port once
/// the server listens, or the reason it never will, or `CancellationError` when their task is
/// cancelled first. (Waiting forever used to hang `bots run` on a port already in use, deaf to
/// Ctrl-C.) The dev server, the webhook intake and `bots run`'s metrics server use it, each with its own error.
public final class ListeningPort<Failure: Error & Sendable>: Sendable {
    private struct State {
        var outcome: Result<Int, Failure>?
        var waiters: [Int: CheckedContinuation<Int, any Error>] = [:]
        var nextWaiter = 0
        /// Waiters cancelled before they were registered.
        var cancelled: Set<Int> = []
    }

    private let state = Locked(State())

    /// Nobody waiting yet, and not bound.
    public init() {}

    /// Whether the server has listened.
    public var isBound: Bool { state.withLock { (try? $0.outcome?.get()) != nil } }

    /// The server listens on `port`.
    public func bound(to port: Int) { settle(.success(port)) }

    /// The server will not listen, because of `error`. Ignored once it is listening.
    public func failed(_ error: Failure) { settle(.failure(error)) }

    private func settle(_ outcome: Result<Int, Failure>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int, any Error>] in
            guard state.outcome == nil else { return [] }
            state.outcome = outcome
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: outcome.mapError { $0 as any Error }) }
    }

    /// Waits until the server listens and returns its port.
    public func port() async throws -> Int {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
                let settled = state.withLock { state -> Result<Int, any Error>? in
                    let wasCancelled = state.cancelled.remove(id) != nil
                    if let outcome = state.outcome { return outcome.mapError { $0 } }
                    if wasCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let settled { continuation.resume(with: settled) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                if state.outcome == nil { state.cancelled.insert(id) }
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
