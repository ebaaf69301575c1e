import Foundation
import Logging

extension TimedWork {
    /// Looks every second for dead letters asked to run again (`bots dead-letters retry`, from
    /// another process, writes them beside the dead letters) and queues them, until cancelled.
    func runDeadLettersAskedFor() async {
        guard let deadLetters = pipeline.deadLetters else { return }
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled, !isStopped {
                do {
                    let letters = try deadLetters.takeRetries()
                    if !letters.isEmpty { await pipeline.queueRetries(letters, workers: &group) }
                } catch {
                    logger.error("Bot \(bot.name) cannot read the dead letters asked to run again: \(error)")
                }
                guard (try? await Task.sleep(for: .seconds(1))) != nil else { return }
            }
        }
    }
}
