import ChatBotKit
import ChatClient
import ChatModels
import Foundation

extension WorkoutBot {
    /// `nudge: 2d`: each member's latest workout gets the bot's reminder, `after` later (the
    /// reminder of their workout before moves off, so each member has one at most). When it
    /// comes due and they posted no workout since, the bot answers in that workout's thread,
    /// mentioning them: `ann, it's been 2 days since this run. Time for another?` The service
    /// keeps the reminders, so a restart or another node holding the channel loses none; a
    /// deleted workout is not nudged about.
    static func addNudges(to bot: Bot, after delay: Duration, store: WorkoutStore) {
        bot.onReminderDue { reminder, context in
            // The reminders of /plan polls are the plan's to handle, those of live runs the tracking's.
            guard context.message.pollId == nil, context.message.sharedLocation?.isLive != true else { return }
            try await nudgeIfIdle(after: delay, context: context, store: store)
            // Handled, it goes: the bot's reminders stay one per member (the service caps a user's).
            try await context.client.deleteReminder(for: reminder.messageId, as: context.bot.user.id)
        }
    }

    /// Nudges the sender of the workout `context.message` unless it was deleted or they posted
    /// a workout since.
    private static func nudgeIfIdle(after delay: Duration, context: BotContext, store: WorkoutStore) async throws {
        let message = context.message
        guard message.type != .deleted, let userId = message.user?.id else { return }
        let since = try store.workouts(of: userId, since: message.createdAt ?? .distantPast)
        guard let workout = since.first(where: { $0.messageId == message.id }), since.allSatisfy({ $0.messageId == message.id }) else { return }
        try await context.reply(
            text: "\(userId), it's been \(spoken(delay)) since this \(workout.type). Time for another?", mentioning: [userId], inThread: true)
    }

    /// After a new workout message of `userId`: the bot's reminder of it, for `delay` later,
    /// in place of the one of their workout before (which has not come due yet).
    static func scheduleNudge(for userId: String, after delay: Duration, context: BotContext, store: WorkoutStore) async throws {
        let now = Date()
        // Only the latest earlier workout holds a reminder; an older one left over (a delete that
        // failed) finds a workout since when it comes due, nudges no one and goes.
        let recent = try store.workouts(of: userId, since: now.addingTimeInterval(-delay.timeInterval))
        if let earlier = recent.last(where: { $0.messageId != context.message.id }) {
            try await forgetReminder(of: earlier.messageId, context: context)
        }
        try await context.remind(at: now.addingTimeInterval(delay.timeInterval))
    }

    /// Deletes the bot's reminder of a message, if it still has one: one already due and
    /// handled, or never set, is no error.
    static func forgetReminder(of messageId: String, context: BotContext) async throws {
        do {
            try await context.client.deleteReminder(for: messageId, as: context.bot.user.id)
        } catch let missing as ChatClientError where missing.httpStatus == 404 {
            // Nothing left to delete.
        }
    }

    /// A duration in words: `2 days`, `36 hours`, `10 minutes`, `1 second`.
    public static func spoken(_ duration: Duration) -> String {
        let seconds = Int(duration.timeInterval.rounded())
        for (unit, size) in [("day", 86_400), ("hour", 3600), ("minute", 60)] where seconds >= size && seconds % size == 0 {
            let count = seconds / size
            return "\(count) \(unit)\(count == 1 ? "" : "s")"
        }
        return "\(seconds) second\(seconds == 1 ? "" : "s")"
    }
}
