/// The `type` of a WebSocket event. Open: unknown types are kept, not dropped.
public struct EventType: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The wire value.
    public let rawValue: String
    /// An event type from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An event type from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Not from the server: an event connection's reader is woken with it to do work of its
    /// own (a scaled-out bot taking a channel over); it concerns no channel.
    public static let wakeUp = Self(rawValue: "chatbotkit.wake_up")
    /// Heartbeat; the first one carries the `connection_id` and `me`.
    public static let healthCheck = Self(rawValue: "health.check")
    /// Authentication or connection failure, sent before the server closes the socket.
    public static let connectionError = Self(rawValue: "connection.error")
    /// A new message in a watched channel.
    public static let messageNew = Self(rawValue: "message.new")
    /// A message was edited.
    public static let messageUpdated = Self(rawValue: "message.updated")
    /// A message was deleted (soft or hard).
    public static let messageDeleted = Self(rawValue: "message.deleted")
    /// A soft-deleted message was restored.
    public static let messageUndeleted = Self(rawValue: "message.undeleted")
    /// A message was marked read.
    public static let messageRead = Self(rawValue: "message.read")
    /// A new message in a channel the user is a member of but not watching.
    public static let notificationMessageNew = Self(rawValue: "notification.message_new")
    /// The user was added to a channel.
    public static let notificationAddedToChannel = Self(rawValue: "notification.added_to_channel")
    /// The user was removed from a channel.
    public static let notificationRemovedFromChannel = Self(rawValue: "notification.removed_from_channel")
    /// The user marked a channel read.
    public static let notificationMarkRead = Self(rawValue: "notification.mark_read")
    /// A channel was marked unread, from a message on (to the user).
    public static let notificationMarkUnread = Self(rawValue: "notification.mark_unread")
    /// A reaction was added.
    public static let reactionNew = Self(rawValue: "reaction.new")
    /// A reaction was replaced.
    public static let reactionUpdated = Self(rawValue: "reaction.updated")
    /// A reaction was removed.
    public static let reactionDeleted = Self(rawValue: "reaction.deleted")
    /// A member joined a channel.
    public static let memberAdded = Self(rawValue: "member.added")
    /// A member changed.
    public static let memberUpdated = Self(rawValue: "member.updated")
    /// A member left a channel.
    public static let memberRemoved = Self(rawValue: "member.removed")
    /// Someone started typing.
    public static let typingStart = Self(rawValue: "typing.start")
    /// Someone stopped typing.
    public static let typingStop = Self(rawValue: "typing.stop")
    /// An AI assistant's state for a reply changed (`ai_state`: thinking, generating, ...);
    /// custom fields `ai_state`, `message_id`.
    public static let aiIndicatorUpdate = Self(rawValue: "ai_indicator.update")
    /// An AI assistant's state indicator ends (its reply is complete).
    public static let aiIndicatorClear = Self(rawValue: "ai_indicator.clear")
    /// A user asked for an AI assistant's reply to stop (the stop button of Stream's UI kits).
    public static let aiIndicatorStop = Self(rawValue: "ai_indicator.stop")
    /// A channel was created.
    public static let channelCreated = Self(rawValue: "channel.created")
    /// A channel changed.
    public static let channelUpdated = Self(rawValue: "channel.updated")
    /// A channel was deleted.
    public static let channelDeleted = Self(rawValue: "channel.deleted")
    /// A channel the user is a member of but was not watching was deleted.
    public static let notificationChannelDeleted = Self(rawValue: "notification.channel_deleted")
    /// A member hid the channel from its channel list (to that member's connections).
    public static let channelHidden = Self(rawValue: "channel.hidden")
    /// A member listed a hidden channel again.
    public static let channelVisible = Self(rawValue: "channel.visible")
    /// A channel's history was emptied (truncated).
    public static let channelTruncated = Self(rawValue: "channel.truncated")
    /// A user started watching a channel.
    public static let userWatchingStart = Self(rawValue: "user.watching.start")
    /// A user stopped watching a channel.
    public static let userWatchingStop = Self(rawValue: "user.watching.stop")
    /// A user's messages in a channel were deleted at once (a ban with `delete_messages`, or the
    /// user deleted or deactivated with `mark_messages_deleted`), with no `message.deleted` each.
    public static let userMessagesDeleted = Self(rawValue: "user.messages.deleted")
    /// A user was deleted.
    public static let userDeleted = Self(rawValue: "user.deleted")
    /// A user was deactivated: it can no longer connect or act until it is reactivated.
    public static let userDeactivated = Self(rawValue: "user.deactivated")
    /// A deactivated user was reactivated.
    public static let userReactivated = Self(rawValue: "user.reactivated")
    /// A user's reminder of a message came due (to that user's connections and the webhook).
    public static let notificationReminderDue = Self(rawValue: "notification.reminder_due")
    /// A vote was cast on a poll (in the channels of the messages carrying it).
    public static let pollVoteCasted = Self(rawValue: "poll.vote_casted")
    /// A vote on a single-choice poll, or an answer, was replaced by a new one.
    public static let pollVoteChanged = Self(rawValue: "poll.vote_changed")
    /// A vote or answer was taken back.
    public static let pollVoteRemoved = Self(rawValue: "poll.vote_removed")
    /// A poll's settings or custom fields changed.
    public static let pollUpdated = Self(rawValue: "poll.updated")
    /// A poll was closed for voting.
    public static let pollClosed = Self(rawValue: "poll.closed")
    /// A poll was deleted.
    public static let pollDeleted = Self(rawValue: "poll.deleted")

    /// Whether the event carries a new message (`message.new` or `notification.message_new`).
    public var carriesNewMessage: Bool { self == .messageNew || self == .notificationMessageNew }

    /// The wire value.
    public var description: String { rawValue }
}
