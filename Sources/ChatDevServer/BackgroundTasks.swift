import ChatLocking

/// Tasks the server starts that outlive the request that started them. On shutdown they are
/// cancelled and awaited, so none writes to the store after the server has stopped.
final class BackgroundTasks: Sendable {
    private struct Running {
        var next = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        var isClosed = false
    }

    private let running = Locked(Running())

    /// Starts `work`, unless the server is shutting down.
    func start(_ work: @escaping @Sendable () async -> Void) {
        running.withLock { running in
            guard !running.isClosed else { return }
            let key = running.next
            running.next += 1
            running.tasks[key] = Task { [weak self] in
                await work()
                self?.running.withLock { _ = $0.tasks.removeValue(forKey: key) }
            }
        }
    }

    /// Cancels every task, refuses new ones, and waits for the running ones to end.
    func cancelAndWait() async {
        let tasks = running.withLock { running in
            running.isClosed = true
            return Array(running.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}
