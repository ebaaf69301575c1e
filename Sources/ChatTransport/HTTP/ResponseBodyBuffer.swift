import ChatLocking
import Foundation

/// The bounded buffer between the curl thread, which receives a streamed response's body, and
/// the task that reads it.
///
/// The producer never blocks: ``offer(_:)`` refuses a chunk once `capacity` bytes wait, and the
/// transfer is paused (curl keeps the chunk and offers it again); ``next()`` asks for the
/// transfer to resume once the reader has taken the buffer down to half. Memory stays bounded
/// by the capacity plus one chunk.
final class ResponseBodyBuffer: Sendable {
    private struct State {
        var chunks: [Data] = []
        var head = 0
        var bytes = 0
        var end: Result<Void, any Error>?
        var waiter: CheckedContinuation<Data?, any Error>?
        var paused = false
    }

    let capacity: Int
    private let state = Locked(State())
    /// Asks the engine to resume the paused transfer.
    private let resume: @Sendable () -> Void
    /// Cancels the transfer (the reader stopped reading).
    private let cancel: @Sendable () -> Void

    init(capacity: Int, resume: @escaping @Sendable () -> Void, cancel: @escaping @Sendable () -> Void) {
        self.capacity = max(1, capacity)
        self.resume = resume
        self.cancel = cancel
    }

    /// Takes a chunk from the curl thread; false when the buffer is full and the transfer
    /// should pause (the chunk is not taken).
    func offer(_ data: Data) -> Bool {
        let (waiter, taken) = state.withLock { state -> (CheckedContinuation<Data?, any Error>?, Bool) in
            guard state.end == nil else { return (nil, true) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, true)
            }
            guard state.bytes < capacity else {
                state.paused = true
                return (nil, false)
            }
            state.chunks.append(data)
            state.bytes += data.count
            return (nil, true)
        }
        waiter?.resume(returning: data)
        return taken
    }

    /// Ends the body: after the chunks that wait, the reader gets nil (`.success`) or the error.
    func finish(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = result
            defer { state.waiter = nil }
            return state.waiter
        }
        switch result {
        case .success: waiter?.resume(returning: nil)
        case .failure(let error): waiter?.resume(throwing: error)
        }
    }

    /// The next chunk; nil at the end of the body. Cancelling the reading task cancels the transfer.
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let (outcome, wake) = state.withLock { state -> (Result<Data?, any Error>?, Bool) in
                    if state.head < state.chunks.count {
                        let chunk = state.chunks[state.head]
                        state.head += 1
                        state.bytes -= chunk.count
                        if state.head == state.chunks.count {
                            state.chunks.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        var wake = false
                        if state.paused, state.bytes <= capacity / 2 {
                            state.paused = false
                            wake = true
                        }
                        return (.success(chunk), wake)
                    }
                    switch state.end {
                    case .success?: return (.success(nil), false)
                    case .failure(let error)?: return (.failure(error), false)
                    case nil:
                        state.waiter = continuation
                        // A paused transfer with nothing left to read must go on.
                        let wake = state.paused
                        state.paused = false
                        return (nil, wake)
                    }
                }
                if wake { resume() }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }
}
