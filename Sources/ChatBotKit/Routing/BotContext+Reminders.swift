import ChatClient
import ChatModels
import Foundation

extension BotContext {
    /// Sets the bot's reminder of a message (the one being handled by default) for `date`,
    /// moving the one it already had: ``Bot/onReminderDue(_:)`` runs then, with the message as
    /// it is by then. The service keeps the reminder, so a follow-up outlives restarts.
    @discardableResult
    public func remind(at date: Date, of message: Message? = nil) async throws -> MessageReminder {
        let id = (message ?? self.message).id
        do {
            return try await client.createReminder(for: id, at: date, as: bot.user.id)
        } catch let refused as ChatClientError where refused.httpStatus == 400 {
            // One reminder per user and message: the bot had one, which moves. Anything else
            // (a deleted message, too many reminders) is the refusal to report.
            guard let moved = try? await client.updateReminder(for: id, at: date, as: bot.user.id) else { throw refused }
            return moved
        }
    }
}
