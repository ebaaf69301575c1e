import ChatClient
import ChatModels
import Foundation

extension BotContext {
    /// Creates a poll as the bot and sends it in this channel (in the thread of the message
    /// being handled when it is a reply), with `text` or else the question as the message's
    /// text. The message's id is derived from the delivery, as replies' are, so a delivery
    /// handled again does not send it twice. Votes then reach ``Bot/onPollVote(_:)``.
    @discardableResult
    public func sendPoll(
        _ name: String, options: [String], text: String = "", description: String? = nil, isAnonymous: Bool = false,
        isSingleChoice: Bool = false, maximumVotes: Int? = nil, allowsAnswers: Bool = false
    ) async throws -> Message {
        let id = nextReplyId()
        if let sent = try? await client.getMessage(id) { return sent }
        let poll = try await client.createPoll(
            name: name, options: options, description: description, isAnonymous: isAnonymous, isSingleChoice: isSingleChoice,
            maximumVotes: maximumVotes, allowsAnswers: allowsAnswers, as: bot.user.id)
        let message = OutgoingMessage(id: id, text: text.isEmpty ? name : text, parentId: self.message.parentId, pollId: poll.id)
        return try await client.sendMessage(message, to: channel.cid, as: bot.user.id)
    }
}
