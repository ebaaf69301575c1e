import ChatClient
import ChatLocking
import ChatModels
import Foundation
import Logging

extension Bot {
    /// Tells the person of the conversation under `key`, which timed out at `expiresAt`, that the
    /// bot stopped waiting: its type's ``Conversation/expiredText``, posted in the channel (in
    /// the conversation's thread) and mentioning them, and the conversation is forgotten. Nothing
    /// when it was answered, ended or told since it was found. Its post's id is derived from
    /// `postKey`, so a repeated delivery posts nothing twice. A failure reaches `onError`
    /// without a context.
    func sayTimedOut(_ key: ConversationKey, expiresAt: Date, channel: ChatChannel, logger: Logger, postKey: String) async {
        let routes = self.routes.withLock { $0 }
        let store = conversationStore
        do {
            guard let saved = try await store.conversation(for: key), saved.expiresAt == expiresAt,
                let text = routes.conversations[saved.name]?.expiredText
            else { return }
            try await store.removeConversation(for: key)
            logger.notice("Conversation \(saved.name) (\(key)) is over: no answer came in time")
            BotMetrics.conversation("expired", name: saved.name, bot: name, factory: channel.client.metricsFactory)
            let message = OutgoingMessage(
                id: BotContext.replyId(bot: name, messageId: postKey, index: 0), text: text, parentId: key.thread, mentionedUserIds: [key.user])
            try await channel.client.sendMessage(message, to: key.channel, as: user.id)
        } catch {
            let botError = BotError(
                code: .handlerFailed, message: "bot \(name) could not tell \(key.user) in \(key.channel) that their conversation timed out: \(error)",
                underlying: error)
            await report(botError, in: channel, logger: logger, context: nil, routes: routes)
        }
    }
}
