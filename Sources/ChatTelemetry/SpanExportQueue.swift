import ChatLocking

/// The ended spans waiting for export: bounded, so a collector that is down costs at most
/// `capacity` spans of memory, and the spans beyond it are dropped (the caller counts them).
/// One exporter waits on it; a full batch, a flush or closing wakes it early.
final class SpanExportQueue: Sendable {
    private let capacity: Int
    private let batchSize: Int
    private let state: Locked<State>

    private struct State {
        var spans: [FinishedSpan] = []
        var isClosed = false
        var isSignalled = false
        var sleeper: Task<Void, Never>?
    }

    init(capacity: Int, batchSize: Int) {
        self.capacity = max(1, capacity)
        self.batchSize = max(1, batchSize)
        state = Locked(State())
    }

    /// Queues `span`; false when the queue is full and the span was dropped.
    func append(_ span: FinishedSpan) -> Bool {
        state.withLock { state in
            guard state.spans.count < capacity else { return false }
            state.spans.append(span)
            if state.spans.count == batchSize { Self.wake(&state) }
            return true
        }
    }

    /// Up to one batch of the oldest spans, taken out of the queue.
    func takeBatch() -> [FinishedSpan] {
        state.withLock { state in
            let count = min(batchSize, state.spans.count)
            defer { state.spans.removeFirst(count) }
            return Array(state.spans.prefix(count))
        }
    }

    /// Every span left, taken out of the queue.
    func takeAll() -> [FinishedSpan] {
        state.withLock { state in
            defer { state.spans = [] }
            return state.spans
        }
    }

    /// Spans waiting.
    var count: Int { state.withLock(\.spans.count) }

    /// Whether ``close()`` was called.
    var isClosed: Bool { state.withLock(\.isClosed) }

    /// Wakes the exporter now (a flush).
    func signal() {
        state.withLock { Self.wake(&$0) }
    }

    /// Wakes the exporter for its last round; spans still come in (a handler ending late) and
    /// are sent if they arrive before that round ends.
    func close() {
        state.withLock {
            $0.isClosed = true
            Self.wake(&$0)
        }
    }

    /// Returns after `interval`, or earlier when a batch is full, a flush is asked for, the queue
    /// closes or the calling task is cancelled.
    func wait(upTo interval: Duration) async {
        let sleeper = Task<Void, Never> { _ = try? await Task.sleep(for: interval) }
        state.withLock { state in
            if state.isSignalled || state.isClosed || state.spans.count >= batchSize {
                state.isSignalled = false
                sleeper.cancel()
            } else {
                state.sleeper = sleeper
            }
        }
        await withTaskCancellationHandler {
            await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
        state.withLock {
            $0.sleeper = nil
            $0.isSignalled = false
        }
    }

    private static func wake(_ state: inout State) {
        if let sleeper = state.sleeper {
            sleeper.cancel()
            state.sleeper = nil
        } else {
            state.isSignalled = true
        }
    }
}
