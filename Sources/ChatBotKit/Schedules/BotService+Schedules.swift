import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension BotService {
    /// Queues the runs of the bot's schedules in its channels as they fall due, until cancelled
    /// (the workers are cancelled once the bot has drained). The schedules are read again at
    /// least every minute, so a reconfiguration's take effect; a run that fell while they were
    /// not looked at is queued late rather than missed, once however many fell. It starts once
    /// the bot is ready (following its channels): with a checkpoint, from when the bot was last
    /// known running, so the last run of each schedule it missed while stopped is made up.
    func runSchedules(slots: AsyncSlots) async {
        // Polled: waiting on readiness itself would not end when the bot stops before it is ready.
        while !becameReady {
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await withDiscardingTaskGroup { group in
            let started = Date()
            var checkedUpTo = schedulesResumeFrom.withLock { $0 } ?? started
            while !Task.isCancelled {
                let schedules = bot.schedules
                let now = Date()
                if !schedulesStopped.withLock({ $0 }) {
                    for (name, schedule) in schedules.sorted(by: { $0.key < $1.key }) {
                        guard let due = schedule.lastRun(after: checkedUpTo, upTo: now) else { continue }
                        let isMadeUp = due < started
                        if isMadeUp {
                            logger.info("Bot \(bot.name) makes up the run of schedule \(name) due at \(RFC3339.string(from: due)), missed while it was stopped")
                        }
                        for cid in scheduledChannels() {
                            guard let (delivery, cid) = once(Delivery(schedule: name, at: due, in: cid, isMadeUp: isMadeUp), in: cid) else { continue }
                            guard mailboxes.enqueue(delivery, in: cid) else { continue }
                            await slots.acquire()
                            group.addTask { [self] in
                                defer { slots.release() }
                                await drainMailbox(cid)
                            }
                        }
                    }
                }
                checkedUpTo = now
                let next = schedules.values.map { $0.nextRun(after: now) }.min() ?? now.addingTimeInterval(60)
                try? await Task.sleep(for: .seconds(min(max(next.timeIntervalSince(Date()), 0.001), 60)))
            }
        }
    }

    /// The channels a run is queued in: those this node handles.
    private func scheduledChannels() -> [ChannelId] {
        if configuration.scaleOut != nil { return leasedChannels.sorted { $0.rawValue < $1.rawValue } }
        if configuration.events.isWebhook { return webhookChannels.withLock { $0 }.sorted { $0.rawValue < $1.rawValue } }
        return connection.watchedChannels
    }
}
