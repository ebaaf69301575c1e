import ChatLocking
import Foundation
import Logging
import ServiceLifecycle

/// The work before-send handlers leave for after their answer (delete a refused upload, post a
/// notice, ban a repeat offender), run one at a time in the order given, so that what one
/// refusal did (a notice) is there when the next one counts. Bounded: past `capacity` waiting,
/// work is dropped and logged, as a server drowning in refusals would have to.
final class BeforeSendFollowUps: Sendable {
    typealias Work = @Sendable () async throws -> Void

    private let queue: AsyncStream<Work>
    private let inbox: AsyncStream<Work>.Continuation
    private let logger: Logger
    /// How many ran, failed and were dropped (for tests and the log).
    let counts = Locked((ran: 0, failed: 0, dropped: 0))

    init(capacity: Int = 10_000, logger: Logger) {
        (queue, inbox) = AsyncStream<Work>.makeStream(bufferingPolicy: .bufferingOldest(capacity))
        self.logger = logger
    }

    /// Queues `work`.
    func add(_ work: @escaping Work) {
        if case .enqueued = inbox.yield(work) { return }
        counts.withLock { $0.dropped += 1 }
        logger.warning("Work a before-send handler left for after its answer was dropped: too much is waiting, or the server is stopping")
    }

    /// Runs the work as it comes until a graceful shutdown, and then what was queued before it.
    func run() async {
        await withGracefulShutdownHandler {
            for await work in queue {
                do {
                    try await work()
                    counts.withLock { $0.ran += 1 }
                } catch {
                    counts.withLock { $0.failed += 1 }
                    logger.error("Work a before-send handler left for after its answer failed: \(error)")
                }
            }
        } onGracefulShutdown: { [inbox] in
            inbox.finish()
        }
    }
}
