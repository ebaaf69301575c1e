import ChatClient
import ChatLocking
import ChatModels
import Foundation

extension BotContext {
    /// Starts a conversation with the sender of the message (for a reaction, with who reacted;
    /// or with `user`), in this channel, or in this thread when the message is in one. Their
    /// next messages there go to the handler of `State` (``Bot/onConversation(_:handler:)``).
    /// A conversation they were in with this bot there is replaced.
    ///
    /// Handling the same message again (a redelivery) does not start it anew. Throws a
    /// ``BotError`` when the bot has no handler for `State`, or nobody is there to talk to.
    public func startConversation<State: Conversation>(_ state: State, with user: String? = nil) async throws {
        guard bot.routes.withLock({ $0.conversations[State.name] }) != nil else {
            throw BotError(
                code: .handlerFailed,
                message: "bot \(bot.name) has no onConversation(\(State.name).self) handler, so no answer would reach the conversation",
                messageId: message.id)
        }
        let key = try requireConversationKey(with: user)
        let store = bot.conversationStore
        if let saved = try await store.conversation(for: key), saved.startedBy == message.id, saved.name == State.name { return }
        let time = turnTime
        try await store.save(
            SavedConversation(
                key: key, name: State.name, state: try RawJSONEncoder().encode(state), startedBy: message.id, lastTurnAt: time,
                expiresAt: time.addingTimeInterval(State.timeout.timeInterval)))
        replyCounter.conversationChanged = true
        BotMetrics.conversation("started", name: State.name, bot: bot.name, factory: client.metricsFactory)
    }

    /// Ends the conversation the bot is in with the sender (or `user`) here, if any.
    public func endConversation(with user: String? = nil) async throws {
        let key = try requireConversationKey(with: user)
        try await bot.conversationStore.removeConversation(for: key)
        replyCounter.conversationChanged = true
    }

    /// The state of the conversation of type `State` the bot is in with the sender (or `user`)
    /// here; nil when there is none (or one of another type).
    public func conversation<State: Conversation>(_ type: State.Type, with user: String? = nil) async throws -> State? {
        let key = try requireConversationKey(with: user)
        guard let saved = try await bot.conversationStore.conversation(for: key), saved.name == State.name else { return nil }
        do {
            return try RawJSONDecoder().decode(State.self, from: saved.state)
        } catch {
            throw BotError(
                code: .handlerFailed, message: "the saved state of conversation \(State.name) (\(key)) does not decode as \(State.self): \(error)",
                messageId: message.id, underlying: error)
        }
    }

    /// Whose conversation this message continues: the sender's (who reacted, for a reaction)
    /// in this channel or thread; nil for a message without a sender.
    var conversationKey: ConversationKey? {
        conversationKey(with: nil)
    }

    /// The time a conversation's turn is measured from: the message's (the reaction's, the
    /// reminder's) own.
    var turnTime: Date {
        switch trigger {
        case .reaction(let reaction, _): reaction.updatedAt ?? reaction.createdAt ?? Date()
        case .edit, .undeletion: message.updatedAt ?? message.createdAt ?? Date()
        case .newMessage, .deletion: message.createdAt ?? Date()
        case .reminderDue(let reminder): reminder.remindAt ?? Date()
        case .pollVote(let vote, _, _): vote.updatedAt ?? vote.createdAt ?? Date()
        case .pollClosed(let poll): poll.updatedAt ?? Date()
        case .location(let location, _): location.updatedAt ?? message.createdAt ?? Date()
        }
    }

    private func conversationKey(with user: String?) -> ConversationKey? {
        let person: String?
        if let user {
            person = user
        } else if case .reaction(let reaction, _) = trigger {
            person = reaction.userId ?? reaction.user?.id
        } else if case .pollVote(let vote, _, _) = trigger {
            person = vote.userId
        } else {
            person = message.user?.id
        }
        guard let person else { return nil }
        return ConversationKey(bot: bot.name, channel: channel.cid, user: person, thread: message.parentId)
    }

    private func requireConversationKey(with user: String?) throws -> ConversationKey {
        guard let key = conversationKey(with: user) else {
            throw BotError(code: .handlerFailed, message: "the message names no sender to hold a conversation with", messageId: message.id)
        }
        return key
    }
}
