import ChatLocking

/// Counts a bot's running handlers and can hold new ones back until none runs, so a bot's
/// routes are replaced between handlers, never under one: the old routes' resources (a store,
/// an archive) are never used by two sets of handlers at once.
final class HandlerGate: Sendable {
    private struct State {
        var running = 0
        var isClosed = false
        var waitingToEnter: [CheckedContinuation<Void, Never>] = []
        var waitingForIdle: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Handlers running now.
    var running: Int { state.withLock { $0.running } }

    /// Counts one more running handler, unless the gate is closed; then `enter()` waits.
    /// Synchronous, for the path every delivery takes while the gate is open.
    func tryEnter() -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.running += 1
            return true
        }
    }

    /// Waits while the gate is closed, then counts one more running handler.
    func enter() async {
        await withCheckedContinuation { continuation in
            let entered = state.withLock { state -> Bool in
                guard state.isClosed else {
                    state.running += 1
                    return true
                }
                state.waitingToEnter.append(continuation)
                return false
            }
            if entered { continuation.resume() }
        }
    }

    /// Counts one handler less.
    func leave() {
        let idle = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.running -= 1
            guard state.running == 0, state.isClosed else { return nil }
            defer { state.waitingForIdle = nil }
            return state.waitingForIdle
        }
        idle?.resume()
    }

    /// Closes the gate and returns once no handler runs. One closer at a time.
    func closeAndWaitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                precondition(!state.isClosed, "the handler gate is closed twice")
                state.isClosed = true
                guard state.running > 0 else { return true }
                state.waitingForIdle = continuation
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Opens the gate and lets the handlers held back run.
    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isClosed = false
            state.running += state.waitingToEnter.count
            defer { state.waitingToEnter = [] }
            return state.waitingToEnter
        }
        for continuation in waiting { continuation.resume() }
    }
}
