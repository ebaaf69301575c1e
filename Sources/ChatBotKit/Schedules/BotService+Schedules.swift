import ChatClient
import ChatLocking
import ChatModels
import Foundation

extension BotService {
    /// Queues the runs of the bot's schedules in its channels as they fall due, until cancelled
    /// (the workers are cancelled once the bot has drained). The schedules are read again at
    /// least every minute, so a reconfiguration's take effect; a run that fell while they were
    /// not looked at is queued late rather than missed, once however many fell.
    func runSchedules(slots: AsyncSlots) async {
        await withDiscardingTaskGroup { group in
            var checkedUpTo = Date()
            while !Task.isCancelled {
                let schedules = bot.schedules
                let now = Date()
                if !schedulesStopped.withLock({ $0 }) {
                    for (name, schedule) in schedules.sorted(by: { $0.key < $1.key }) {
                        guard let due = schedule.lastRun(after: checkedUpTo, upTo: now) else { continue }
                        for cid in scheduledChannels() {
                            guard let (delivery, cid) = once(Delivery(schedule: name, at: due, in: cid), in: cid) else { continue }
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
