import ChatLocking
import ChatModels
import Foundation

extension BotService {
    /// What the bot does of its own accord once it is ready, until cancelled (the workers are
    /// cancelled once the bot has drained): its schedules' runs, and telling people whose
    /// conversation timed out, and, once, the reminders that came due while it was stopped.
    /// Each is queued in its channel, in order with the channel's messages.
    func runTimedWork(slots: AsyncSlots) async {
        // Polled: waiting on readiness itself would not end when the bot stops before it is ready.
        while !becameReady {
            guard !Task.isCancelled else { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
        async let schedules: Void = runSchedules(slots: slots)
        async let timeouts: Void = sayConversationTimeouts(slots: slots)
        async let reminders: Void = makeUpMissedReminders(slots: slots)
        _ = await (schedules, timeouts, reminders)
    }

    /// The channels timed work is queued in: those this node handles.
    func handledChannels() -> [ChannelId] {
        if configuration.scaleOut != nil { return leasedChannels.sorted { $0.rawValue < $1.rawValue } }
        if configuration.events.isWebhook { return webhookChannels.withLock { $0 }.sorted { $0.rawValue < $1.rawValue } }
        return connection.watchedChannels
    }

    /// Queues `delivery` in `cid` unless it was handled before (here, or by the channel's last
    /// holder), and starts the channel's worker when it has none.
    func queueTimed(_ delivery: Delivery, in cid: ChannelId, slots: AsyncSlots, group: inout DiscardingTaskGroup) async {
        guard queueOwn(delivery, in: cid) else { return }
        await slots.acquire()
        group.addTask { [self] in
            defer { slots.release() }
            await drainMailbox(cid)
        }
    }

    /// Queues a delivery the bot made itself (no event of its channel brought it) unless it was
    /// handled before; true when the channel's worker must be started.
    func queueOwn(_ delivery: Delivery, in cid: ChannelId) -> Bool {
        guard let (delivery, cid) = once(delivery, in: cid) else { return false }
        // Listed as handled once finished: in the channel's hand-off, so that the node taking
        // the channel over does not run it again, and in the checkpoint.
        if configuration.scaleOut != nil { ownership.withLock { $0.acceptedOwn(delivery.key, in: cid) } }
        if configuration.catchUp != nil { progress.withLock { $0.acceptedOwn(delivery.key) } }
        return mailboxes.enqueue(delivery, in: cid)
    }
}
