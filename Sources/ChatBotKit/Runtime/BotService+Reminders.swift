import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension BotService {
    /// With a checkpoint, the bot's reminders that came due while it was stopped (after the
    /// checkpoint was last saved) are queued once at start, each in its channel when this
    /// node handles it; the service sends no `notification.reminder_due` again for them, and
    /// those due from now on come as events.
    func makeUpMissedReminders(slots: AsyncSlots) async {
        guard bot.handlesReminders, let resumeFrom = schedulesResumeFrom.withLock({ $0 }) else { return }
        let now = Date()
        var missed: [MessageReminder] = []
        var next: String?
        do {
            repeat {
                // Handled reminders stay until deleted: the service leaves out those due before.
                let page = try await client.queryReminders(dueAfter: resumeFrom, dueBy: now, limit: 100, next: next, as: bot.user.id)
                missed += page.reminders
                next = page.next
            } while next != nil
        } catch {
            logger.error("Bot \(bot.name) could not list the reminders that came due while it was stopped: \(error)")
            return
        }
        let channels = Set(handledChannels())
        await withDiscardingTaskGroup { group in
            for reminder in missed where channels.contains(reminder.cid) {
                guard let message = reminder.message, let remindAt = reminder.remindAt else { continue }
                logger.info(
                    "Bot \(bot.name) handles its reminder of message \(message.id), due at \(RFC3339.string(from: remindAt)) while it was stopped")
                await queueTimed(Delivery(.reminderDue(reminder), message), in: reminder.cid, slots: slots, group: &group)
            }
        }
    }
}
