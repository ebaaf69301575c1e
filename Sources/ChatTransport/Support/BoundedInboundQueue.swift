import ChatLocking
import Foundation

/// A bounded queue between the WebSocket service thread (producer) and an async consumer.
///
/// The producer never blocks: it learns from ``push(_:)`` that the queue is full and then
/// pauses reading from the socket; ``next()`` calls `onDrained` once the consumer has caught up
/// to half the capacity, so reading resumes. Memory stays bounded by the capacity.
final class BoundedInboundQueue: Sendable {
    private struct State {
        var buffer: [WebSocketInbound] = []
        var head = 0
        var waiter: CheckedContinuation<WebSocketInbound?, Never>?
        var finished = false
        var paused = false
    }

    let capacity: Int
    private let state = Locked(State())
    private let drainHandler = Locked<(@Sendable () -> Void)?>(nil)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// What to call when a paused producer may resume.
    func onDrained(_ handler: @escaping @Sendable () -> Void) {
        drainHandler.withLock { $0 = handler }
    }

    /// Adds an element; returns true when the queue is now full and the producer should pause.
    @discardableResult
    func push(_ element: WebSocketInbound) -> Bool {
        let (waiter, full) = state.withLock { state -> (CheckedContinuation<WebSocketInbound?, Never>?, Bool) in
            guard !state.finished else { return (nil, false) }
            if case .closed = element { state.finished = true }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, false)
            }
            state.buffer.append(element)
            let full = state.buffer.count - state.head >= capacity
            if full { state.paused = true }
            return (nil, full)
        }
        waiter?.resume(returning: element)
        return full
    }

    /// The next element; nil once `.closed` has been delivered, or when the waiting task is
    /// cancelled (the connection itself stays as it is).
    func next() async -> WebSocketInbound? {
        await withTaskCancellationHandler {
            await waitForNext()
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    private func waitForNext() async -> WebSocketInbound? {
        await withCheckedContinuation { continuation in
            if Task.isCancelled {
                continuation.resume(returning: nil)
                return
            }
            let (element, resume) = state.withLock { state -> (WebSocketInbound??, Bool) in
                if state.head < state.buffer.count {
                    let element = state.buffer[state.head]
                    state.head += 1
                    if state.head > 64, state.head * 2 > state.buffer.count {
                        state.buffer.removeFirst(state.head)
                        state.head = 0
                    }
                    var resume = false
                    if state.paused, state.buffer.count - state.head <= capacity / 2 {
                        state.paused = false
                        resume = true
                    }
                    return (.some(element), resume)
                }
                if state.finished { return (.some(nil), false) }
                state.waiter = continuation
                return (nil, false)
            }
            if resume { drainHandler.withLock { $0 }?() }
            if let element { continuation.resume(returning: element) }
        }
    }

    /// The number of elements waiting.
    var count: Int { state.withLock { $0.buffer.count - $0.head } }
}
