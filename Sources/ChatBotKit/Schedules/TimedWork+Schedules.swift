import ChatClient
import ChatModels
import Foundation
import Logging

extension TimedWork {
    /// Queues the runs of the bot's schedules in its channels as they fall due (see
    /// ``run(after:)``). The schedules are read again at least every minute, so a
    /// reconfiguration's take effect; a run that fell while they were not looked at is queued
    /// late rather than missed, once however many fell. With a checkpoint, it starts from when
    /// the bot was last known running, so the last run of each schedule it missed while stopped
    /// is made up.
    func runSchedules() async {
        await withDiscardingTaskGroup { group in
            let started = Date()
            var checkedUpTo = resumeDate ?? started
            while !Task.isCancelled {
                let schedules = bot.schedules
                let now = Date()
                if !isStopped {
                    for (name, schedule) in schedules.sorted(by: { $0.key < $1.key }) {
                        guard let due = schedule.lastRun(after: checkedUpTo, upTo: now) else { continue }
                        let isMadeUp = due < started
                        if isMadeUp {
                            logger.info("Bot \(bot.name) makes up the run of schedule \(name) due at \(RFC3339.string(from: due)), missed while it was stopped")
                        }
                        for cid in channels() {
                            await pipeline.queueOwn(Delivery(schedule: name, at: due, in: cid, isMadeUp: isMadeUp), in: cid, workers: &group)
                        }
                    }
                }
                checkedUpTo = now
                let next = schedules.values.map { $0.nextRun(after: now) }.min() ?? now.addingTimeInterval(60)
                try? await Task.sleep(for: .seconds(min(max(next.timeIntervalSince(Date()), 0.001), 60)))
            }
        }
    }
}
