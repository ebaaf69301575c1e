import ChatClient
import ChatModels
import Foundation
import Logging

extension TimedWork {
    /// With a checkpoint, the bot's reminders that came due while it was stopped (after the
    /// checkpoint was last saved) are queued once at start, each in its channel when this
    /// node handles it; the service sends no `notification.reminder_due` again for them, and
    /// those due from now on come as events.
    func makeUpMissedReminders() async {
        guard bot.handlesReminders, let resumeFrom = resumeDate else { return }
        let missed: [MessageReminder]
        do {
            missed = try await client.remindersDue(to: bot.user.id, after: resumeFrom)
        } catch {
            logger.error("Bot \(bot.name) could not list the reminders that came due while it was stopped: \(error)")
            return
        }
        let channels = Set(channels())
        await withDiscardingTaskGroup { group in
            for reminder in missed where channels.contains(reminder.cid) {
                guard let message = reminder.message, let remindAt = reminder.remindAt else { continue }
                logger.info(
                    "Bot \(bot.name) handles its reminder of message \(message.id), due at \(RFC3339.string(from: remindAt)) while it was stopped")
                await pipeline.queueOwn(Delivery(.reminderDue(reminder), message), in: reminder.cid, workers: &group)
            }
        }
    }
}

extension ChatClient {
    /// The reminders of `userId` (in `cid`, or in every channel) that came due after `date`, up
    /// to now. Handled ones stay until deleted: the service leaves out those due before `date`.
    func remindersDue(to userId: String, in cid: ChannelId? = nil, after date: Date) async throws -> [MessageReminder] {
        let now = Date()
        var due: [MessageReminder] = []
        var next: String?
        repeat {
            let page = try await queryReminders(in: cid, dueAfter: date, dueBy: now, limit: 100, next: next, as: userId)
            due += page.reminders
            next = page.next
        } while next != nil
        return due
    }
}
