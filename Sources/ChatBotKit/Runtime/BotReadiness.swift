import ChatLocking

/// Whether a bot got ready (connected and watching its channels) or never will, for whoever
/// waits for it: settled once, by the first outcome.
final class BotReadiness: Sendable {
    private enum State {
        case starting([CheckedContinuation<Result<Void, BotError>, Never>])
        case settled(Result<Void, BotError>)
    }

    private let state = Locked(State.starting([]))

    /// A bot still starting.
    init() {}

    /// Waits until the bot is ready; throws what stopped it if it could not start or stopped
    /// before it was ready.
    func wait() async throws(BotError) {
        let outcome: Result<Void, BotError> = await withCheckedContinuation { continuation in
            let settled = state.withLock { state -> Result<Void, BotError>? in
                switch state {
                case .starting(var waiters):
                    waiters.append(continuation)
                    state = .starting(waiters)
                    return nil
                case .settled(let outcome): return outcome
                }
            }
            if let settled { continuation.resume(returning: settled) }
        }
        try outcome.get()
    }

    /// Whether the bot got ready (it may have stopped since).
    var isReady: Bool {
        state.withLock { state in
            if case .settled(.success) = state { return true }
            return false
        }
    }

    /// Records that the bot became ready (or never will) and wakes everyone waiting; only the
    /// first outcome counts.
    func settle(_ outcome: Result<Void, BotError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<Void, BotError>, Never>] in
            guard case .starting(let waiters) = state else { return [] }
            state = .settled(outcome)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }
}
