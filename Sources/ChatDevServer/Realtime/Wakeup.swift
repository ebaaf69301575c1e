import ChatLocking

/// A signal one task waits on and others raise: a raise while nobody waits is kept for the
/// next wait, so a change made between two waits is not lost.
final class Wakeup: Sendable {
    private struct State {
        var isRaised = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Wakes the waiting task, or the next one to wait.
    func raise() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.isRaised = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next ``raise()`` (at once when one came since the last wait), after
    /// `timeout`, or when the task is cancelled, whichever is first.
    func wait(upTo timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.nextRaise() }
            await group.next()
            group.cancelAll()
        }
    }

    private func nextRaise() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumesNow = state.withLock { state -> Bool in
                    if state.isRaised {
                        state.isRaised = false
                        return true
                    }
                    // Cancelled before waiting: the handler below found no waiter to resume.
                    if Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if resumesNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
