import ChatClient
import ChatModels
import Foundation

/// What an event is to a bot: a delivery for its handlers in one of its channels, or nothing.
/// Only what the bot has handlers for, and never what the bot did itself; whether it was
/// handled before is for the ``DeliveryPipeline`` to say.
struct EventAcceptance: Sendable {
    /// The bot, whose handlers and user decide.
    let bot: Bot

    /// A new message from someone else, an edit, the deletion or undeletion of one, or someone else's
    /// reaction to any message; nil for anything else.
    func delivery(for event: Event) -> (Delivery, ChannelId)? {
        let trigger: BotContext.Trigger
        switch event.type {
        case .messageNew, .notificationMessageNew: trigger = .newMessage
        case .messageUpdated:
            guard let update = updateTrigger(of: event) else { return nil }
            trigger = update
        case .messageDeleted: trigger = .deletion(isHardDelete: event.hardDelete ?? false)
        case .messageUndeleted: trigger = .undeletion
        case .channelTruncated, .channelDeleted: return truncation(event)
        case .userMessagesDeleted: return userMessagesDeletion(event)
        case .reactionNew, .reactionUpdated, .reactionDeleted: return reaction(event)
        case .notificationReminderDue: return reminder(event)
        case .pollVoteCasted, .pollVoteChanged, .pollVoteRemoved: return pollVote(event)
        case .pollClosed: return pollClosing(event)
        default: return channelEvent(event)
        }
        guard let message = event.message, let cid = event.cid ?? message.cid, message.user?.id != bot.user.id else { return nil }
        switch trigger {
        case .deletion, .reaction, .reminderDue, .pollVote, .pollClosed: break
        case .newMessage, .edit, .undeletion, .location: guard message.type != .deleted, message.type != .ephemeral else { return nil }
        }
        return (Delivery(trigger, message), cid)
    }

    /// A user deleted with its messages (`user.deleted` with `mark_messages_deleted`), unless it
    /// is the bot: the deletion of its messages in each channel the bot handles (see
    /// ``DeliveryPipeline/take(_:workers:)``); nil for any other `user.deleted`.
    func userDeletion(_ event: Event) -> (user: User, deletedAt: Date, isHardDelete: Bool)? {
        guard event.extraData["mark_messages_deleted"]?.boolValue == true, let user = event.user, user.id != bot.user.id,
            let deletedAt = event.createdAt
        else { return nil }
        return (user, deletedAt, event.hardDelete ?? false)
    }

    /// A reaction added (or replaced) or taken off, by someone other than the bot, to any
    /// message, the bot's own included: reacting to a bot's answer is how people answer it.
    /// Who reacted is resolved here once: the reaction handed on carries it as `userId`. Only
    /// for a bot with reaction handlers: in a busy channel reactions outnumber messages, and
    /// taken for nothing they would each be queued, counted and remembered as handled, crowding
    /// messages out of the window that keeps redeliveries from being handled twice.
    private func reaction(_ event: Event) -> (Delivery, ChannelId)? {
        guard bot.handlesReactions, var reaction = event.reaction, let message = event.message, let cid = event.cid ?? message.cid else { return nil }
        reaction.userId = event.reactingUserId
        guard reaction.userId != bot.user.id else { return nil }
        return (Delivery(.reaction(reaction, isRemoved: event.type == .reactionDeleted), message), cid)
    }

    /// The bot's own reminder come due, with the message it is about, for a bot with reminder
    /// handlers. By webhook the app gets every user's reminders: only the bot's are taken.
    private func reminder(_ event: Event) -> (Delivery, ChannelId)? {
        guard bot.handlesReminders, let json = event.extraData["reminder"],
            let reminder = try? MessageReminder(json: json, operation: "notification.reminder_due"), reminder.userId == bot.user.id,
            let message = reminder.message
        else { return nil }
        return (Delivery(.reminderDue(reminder), message), reminder.cid)
    }

    /// Another channel event, for a bot with handlers of its type, unless the bot did it or it
    /// concerns the bot's own membership; the bot's addition to a channel goes to its
    /// addition handlers instead.
    private func channelEvent(_ event: Event) -> (Delivery, ChannelId)? {
        guard let cid = event.cid else { return nil }
        if event.isAddition(of: bot.user.id) {
            return bot.handlesAdditions ? (Delivery(addition: event, in: cid), cid) : nil
        }
        guard bot.handlesEvents(of: event.type) else { return nil }
        guard (event.member?.userId ?? event.user?.id) != bot.user.id, event.user?.id != bot.user.id else { return nil }
        return (Delivery(event: event, in: cid), cid)
    }

    /// A channel's truncation or deletion, for the bots that follow them (queued in order with
    /// the channel's messages all the same, so nothing is dropped while none does).
    private func truncation(_ event: Event) -> (Delivery, ChannelId)? {
        guard let channel = event.channel, let cid = event.cid ?? Optional(channel.cid) else { return nil }
        let isDeleted = event.type == .channelDeleted
        guard let truncatedAt = (isDeleted ? channel.deletedAt : channel.truncatedAt) ?? event.createdAt else { return nil }
        let truncation = ChannelTruncation(channel: channel, truncatedAt: truncatedAt, isChannelDeleted: isDeleted, user: event.user)
        return (Delivery(truncation), cid)
    }

    /// One user's messages in a channel deleted at once, unless they are the bot's own (queued
    /// like a truncation, whether or not the bot has handlers for it).
    private func userMessagesDeletion(_ event: Event) -> (Delivery, ChannelId)? {
        guard let cid = event.cid, let user = event.user, user.id != bot.user.id, let deletedAt = event.createdAt else { return nil }
        return (Delivery(UserMessagesDeletion(cid: cid, user: user, deletedAt: deletedAt, isHardDelete: event.hardDelete ?? false)), cid)
    }
}
