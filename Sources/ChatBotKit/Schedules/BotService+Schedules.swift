import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension BotService {
    /// Queues the runs of the bot's schedules in its channels as they fall due (see
    /// ``runTimedWork(slots:)``). The schedules are read again at least every minute, so a
    /// reconfiguration's take effect; a run that fell while they were not looked at is queued
    /// late rather than missed, once however many fell. With a checkpoint, it starts from when
    /// the bot was last known running, so the last run of each schedule it missed while stopped
    /// is made up.
    func runSchedules(slots: AsyncSlots) async {
        await withDiscardingTaskGroup { group in
            let started = Date()
            var checkedUpTo = schedulesResumeFrom.withLock { $0 } ?? started
            while !Task.isCancelled {
                let schedules = bot.schedules
                let now = Date()
                if !timedWorkStopped.withLock({ $0 }) {
                    for (name, schedule) in schedules.sorted(by: { $0.key < $1.key }) {
                        guard let due = schedule.lastRun(after: checkedUpTo, upTo: now) else { continue }
                        let isMadeUp = due < started
                        if isMadeUp {
                            logger.info("Bot \(bot.name) makes up the run of schedule \(name) due at \(RFC3339.string(from: due)), missed while it was stopped")
                        }
                        for cid in handledChannels() {
                            await queueTimed(Delivery(schedule: name, at: due, in: cid, isMadeUp: isMadeUp), in: cid, slots: slots, group: &group)
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
