import ChatLocking

/// Counts a bot's running handlers and can hold new ones back until none runs, so a bot's
/// routes are replaced between handlers, never under one: the old routes' resources (a store,
/// an archive) are never used by two sets of handlers at once.
///
/// It also knows the tasks the handlers run in (a channel's worker runs them one after the
/// other, in its own task), so a reconfiguration asked for by one of them is refused instead
/// of waiting for itself forever.
final class HandlerGate: Sendable {
    private struct State {
        var running = 0
        var isClosed = false
        var handlerTasks: [Int: Int] = [:]
        var waitingToEnter: [(task: Int?, continuation: CheckedContinuation<Void, Never>)] = []
        var waitingForIdle: CheckedContinuation<Void, Never>?

        mutating func enter(_ task: Int?) {
            running += 1
            if let task { handlerTasks[task, default: 0] += 1 }
        }
    }

    private let state = Locked(State())

    /// Handlers running now.
    var running: Int { state.withLock { $0.running } }

    /// The current task's key, for `admit`, `leave` and `isHandler`.
    static func currentTask() -> Int? { withUnsafeCurrentTask { $0?.hashValue } }

    /// Counts one more handler, running in `task`, unless the gate is closed; then `enter(task:)`
    /// waits. Synchronous, for the path every delivery takes while the gate is open.
    private func tryEnter(task: Int?) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.enter(task)
            return true
        }
    }

    /// Counts one more handler, running in `task`: at once while the gate is open (the path
    /// every delivery takes, which then does not suspend), else once it opens. Inlined, so that
    /// the open path costs no async call.
    @inline(__always)
    func admit(task: Int?) async {
        if !tryEnter(task: task) { await enter(task: task) }
    }

    /// Waits while the gate is closed, then counts one more handler, running in `task`.
    private func enter(task: Int?) async {
        await withCheckedContinuation { continuation in
            let entered = state.withLock { state -> Bool in
                guard state.isClosed else {
                    state.enter(task)
                    return true
                }
                state.waitingToEnter.append((task, continuation))
                return false
            }
            if entered { continuation.resume() }
        }
    }

    /// Whether a handler runs in `task` now.
    func isHandler(_ task: Int) -> Bool { state.withLock { $0.handlerTasks[task] != nil } }

    /// Counts one handler less, the one running in `task`.
    func leave(task: Int?) {
        let idle = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.running -= 1
            if let task {
                let remaining = (state.handlerTasks[task] ?? 1) - 1
                state.handlerTasks[task] = remaining > 0 ? remaining : nil
            }
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
            for waiter in state.waitingToEnter { state.enter(waiter.task) }
            defer { state.waitingToEnter = [] }
            return state.waitingToEnter.map(\.continuation)
        }
        for continuation in waiting { continuation.resume() }
    }
}
