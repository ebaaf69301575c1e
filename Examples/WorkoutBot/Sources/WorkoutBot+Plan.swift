import ChatBotKit
import ChatClient
import ChatModels
import Foundation

extension WorkoutBot {
    /// `/plan sat sun` asks the channel which day the group run is: a single-choice poll that
    /// closes after `closesAfter` (through a reminder the service keeps, so a restart does not
    /// lose it); when it closes, the bot says which day won, or that there is a tie.
    static func addPlan(to bot: Bot, closesAfter: Duration) {
        bot.command("plan") { invocation, context in
            let days = invocation.arguments.isEmpty ? ["Sat", "Sun"] : invocation.arguments
            guard (2...10).contains(days.count), Set(days.map { $0.lowercased() }).count == days.count else {
                try await context.reply(text: "Say /plan sat sun: two to ten different days (or anything else to choose from).")
                return
            }
            let sent = try await context.sendPoll("Group run: which day?", options: days, isSingleChoice: true)
            try await context.remind(at: Date().addingTimeInterval(closesAfter.timeInterval), of: sent)
        }
        bot.onReminderDue { reminder, context in
            guard let pollId = context.message.pollId, context.message.user?.id == context.bot.user.id else { return }
            let poll = try await context.client.poll(pollId, as: context.bot.user.id)
            if !poll.isClosed { try await context.client.closePoll(pollId, as: context.bot.user.id) }
            try await context.client.deleteReminder(for: reminder.messageId, as: context.bot.user.id)
        }
        bot.onPollClosed { poll, context in
            guard poll.createdById == context.bot.user.id else { return }
            try await context.reply(text: verdict(poll), inThread: true)
        }
    }

    /// What the bot says when a plan's poll closes.
    public static func verdict(_ poll: Poll) -> String {
        let leading = poll.leadingOptions
        guard let first = leading.first else { return "Nobody voted, so no group run this time." }
        let votes = poll.voteCountsByOption[first.id] ?? 0
        let count = "\(votes) \(votes == 1 ? "vote" : "votes")"
        guard leading.count == 1 else { return "A tie between \(leading.map(\.text).joined(separator: " and ")) (\(count) each): /plan again?" }
        return "Group run on \(first.text) (\(count))."
    }
}
