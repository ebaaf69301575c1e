import ChatClient
import ChatModels
import Foundation

extension BotContext {
    /// Sets the bot's reminder of a message (the one being handled by default) for `date`,
    /// moving the one it already had: ``Bot/onReminderDue(_:)`` runs then, with the message as
    /// it is by then. The service keeps the reminder, so a follow-up outlives restarts.
    @discardableResult
    public func remind(at date: Date, of message: Message? = nil) async throws -> MessageReminder {
        try await client.setReminder(for: (message ?? self.message).id, at: date, as: bot.user.id)
    }
}
