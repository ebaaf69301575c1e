import ChatClient
import ChatModels
import Foundation

/// Posts in one channel as the bot, with ids derived from a key and a counter, so that work done
/// again (a redelivery, a restart) posts nothing twice. Shared by the contexts that answer no
/// one message: scheduled runs and channel events.
struct ChannelPoster: Sendable {
    let channel: ChatChannel
    let bot: Bot
    /// What the ids of its posts are derived from (its delivery's key).
    let postKey: String
    let counter = ReplyCounter()

    func post(
        text: String, attachments: [AnyAttachmentPayload], extraData: [String: RawJSON], skipEnrichURL: Bool,
        progress: (@Sendable (Double) -> Void)?
    ) async throws -> Message {
        let id = BotContext.replyId(bot: bot.name, messageId: postKey, index: counter.next())
        let message = OutgoingMessage(id: id, text: text, attachments: attachments, skipEnrichURL: skipEnrichURL, extraData: extraData)
        return try await channel.client.sendMessage(message, to: channel.cid, as: bot.user.id, progress: progress)
    }
}
