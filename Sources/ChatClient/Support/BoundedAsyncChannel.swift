import ChatLocking

/// A bounded channel from one producer to one consumer: `send` waits while the buffer is full,
/// so a slow consumer slows the producer down instead of growing memory.
final class BoundedAsyncChannel<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var consumer: CheckedContinuation<Element?, Never>?
        var producers: [CheckedContinuation<Void, Never>] = []
        var finished = false
        var count: Int { buffer.count - head }
    }

    private enum Step {
        case delivered(CheckedContinuation<Element?, Never>?)
        case full
        case finished
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Delivers `element`, waiting while the buffer is full; false once the channel is finished.
    @discardableResult
    func send(_ element: Element) async -> Bool {
        while true {
            let step = state.withLock { state -> Step in
                if state.finished { return .finished }
                if let consumer = state.consumer {
                    state.consumer = nil
                    return .delivered(consumer)
                }
                if state.count < capacity {
                    state.buffer.append(element)
                    return .delivered(nil)
                }
                return .full
            }
            switch step {
            case .delivered(let consumer):
                consumer?.resume(returning: element)
                return true
            case .finished:
                return false
            case .full:
                await withCheckedContinuation { continuation in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.finished || state.count < capacity { return true }
                        state.producers.append(continuation)
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// The next element; nil once finished and drained, or when the waiting task is cancelled.
    func next() async -> Element? {
        await withTaskCancellationHandler {
            await waitForNext()
        } onCancel: {
            let consumer = state.withLock { state in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(returning: nil)
        }
    }

    private func waitForNext() async -> Element? {
        await withCheckedContinuation { continuation in
            if Task.isCancelled {
                continuation.resume(returning: nil)
                return
            }
            let (element, producer) = state.withLock { state -> (Element??, CheckedContinuation<Void, Never>?) in
                if state.head < state.buffer.count {
                    let element = state.buffer[state.head]
                    state.head += 1
                    if state.head > 32, state.head * 2 >= state.buffer.count {
                        state.buffer.removeFirst(state.head)
                        state.head = 0
                    }
                    let producer = state.producers.isEmpty ? nil : state.producers.removeFirst()
                    return (.some(element), producer)
                }
                if state.finished { return (.some(nil), nil) }
                state.consumer = continuation
                return (nil, nil)
            }
            producer?.resume()
            if let element { continuation.resume(returning: element) }
        }
    }

    /// Ends the channel: waiting producers are released, the consumer drains what is buffered.
    func finish() {
        let (consumer, producers) = state.withLock { state -> (CheckedContinuation<Element?, Never>?, [CheckedContinuation<Void, Never>]) in
            state.finished = true
            defer {
                state.consumer = nil
                state.producers = []
            }
            return (state.count == 0 ? state.consumer : nil, state.producers)
        }
        consumer?.resume(returning: nil)
        for producer in producers { producer.resume() }
    }

    /// Elements waiting.
    var count: Int { state.withLock { $0.count } }
}
