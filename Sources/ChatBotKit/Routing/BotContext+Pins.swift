import ChatClient
import ChatModels
import Foundation

extension BotContext {
    /// Pins a message in the channel (the one being handled by default, or a reply the bot
    /// made), for good or `for` a while; the bot is recorded as who pinned it.
    @discardableResult
    public func pin(_ message: Message? = nil, for duration: Duration? = nil) async throws -> Message {
        let target = message ?? self.message
        var expiry: Date?
        if let duration {
            guard duration > .zero else {
                throw BotError(code: .handlerFailed, message: "a pin must last longer than zero; leave the duration out to pin for good", messageId: target.id)
            }
            expiry = Date().addingTimeInterval(duration.timeInterval)
        }
        return try await client.pinMessage(target.id, until: expiry, as: bot.user.id)
    }

    /// Unpins a message (the one being handled by default).
    @discardableResult
    public func unpin(_ message: Message? = nil) async throws -> Message {
        try await client.unpinMessage((message ?? self.message).id, as: bot.user.id)
    }
}
