import ChatClient
import ChatLocking
import ChatModels
import ChatTransport
import Foundation
import Logging

/// Everything a handler needs about the message it handles, and the ways to answer.
///
/// Replies get a deterministic id derived from the bot, the message and the reply's position,
/// so a reply that is sent twice (a retry, a redelivered message) is stored once.
public struct BotContext: Sendable {
    /// What a bot is handling: a new message, an edit of one, the deletion of one, its
    /// undeletion, or a reaction added to one or taken off it.
    public enum Trigger: Sendable, Hashable {
        /// A new message.
        case newMessage
        /// An edit; `message` is the message as edited.
        case edit
        /// A deletion; `message` is the deleted message.
        case deletion(isHardDelete: Bool)
        /// An undeletion; `message` is the message as restored.
        case undeletion
        /// A reaction added to `message` or (`isRemoved`) taken off it; the reaction's user is
        /// who reacted, not the message's author.
        case reaction(Reaction, isRemoved: Bool)
        /// A reminder the bot set on `message` came due (``Bot/onReminderDue(_:)``).
        case reminderDue(MessageReminder)
        /// A vote on the poll `message` carries was cast, changed or taken back
        /// (``Bot/onPollVote(_:)``); `poll` is the poll as it stands after it.
        case pollVote(PollVote, poll: Poll, change: PollVoteChange)
        /// The poll `message` carries was closed for voting (``Bot/onPollClosed(_:)``).
        case pollClosed(Poll)
        /// A location `message` shares was shared, moved or stopped (``Bot/onLocation(_:)``);
        /// the location is as it stands after it.
        case location(SharedLocation, change: LocationChange)
    }

    /// The message being handled.
    public let message: Message
    /// Whether the message is new, edited, deleted, undeleted or reacted to (so middleware can tell them apart).
    public let trigger: Trigger
    /// Its channel.
    public let channel: ChatChannel
    /// The bot handling it.
    public let bot: Bot
    /// A logger with the message id attached.
    ///
    /// Built when asked for: setting metadata makes swift-log's stream handler render its
    /// metadata text again, and most messages are handled without logging anything.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "message_id"] = .string(message.id)
        return logger
    }
    let baseLogger: Logger
    let replyCounter: ReplyCounter
    /// What reply ids are derived from (``Delivery/key``).
    let replyKey: String

    /// The client.
    public var client: ChatClient { channel.client }

    /// A context for `message` in `channel`.
    public init(message: Message, channel: ChatChannel, bot: Bot, logger: Logger) {
        self.init(message: message, trigger: .newMessage, channel: channel, bot: bot, logger: logger, replyKey: message.id)
    }

    /// A context for the deletion of `deletion.message` in `channel`; its replies get ids of
    /// their own, apart from those of the replies to the message.
    public init(deletion: MessageDeletion, channel: ChatChannel, bot: Bot, logger: Logger) {
        self.init(
            message: deletion.message, trigger: .deletion(isHardDelete: deletion.isHardDelete), channel: channel, bot: bot, logger: logger,
            replyKey: Delivery.key(.deletion(isHardDelete: deletion.isHardDelete), deletion.message))
    }

    /// A context for an edit of `message` in `channel`; its replies get ids of their own for
    /// each edit (told apart by `updatedAt`).
    public init(update message: Message, channel: ChatChannel, bot: Bot, logger: Logger) {
        self.init(message: message, trigger: .edit, channel: channel, bot: bot, logger: logger, replyKey: Delivery.key(.edit, message))
    }

    /// A context whose reply ids derive from `replyKey`.
    init(message: Message, trigger: Trigger, channel: ChatChannel, bot: Bot, logger: Logger, replyKey: String) {
        self.message = message
        self.trigger = trigger
        self.channel = channel
        self.bot = bot
        baseLogger = logger
        replyCounter = ReplyCounter()
        self.replyKey = replyKey
    }

    /// Replies in the channel (in the thread, when the message is in one) with text, custom
    /// payloads and local files (uploaded first, with `progress`). `inThread` answers in the
    /// message's thread, starting one under a channel message, so a busy channel stays
    /// readable; `alsoInChannel` shows such a reply in the channel too. The first link of the
    /// text gets the service's preview unless `skipEnrichURL` is set. The users in `mentioning`
    /// are mentioned (the service notifies them).
    @discardableResult
    public func reply(
        text: String = "", attachments: [AnyAttachmentPayload] = [], extraData: [String: RawJSON] = [:], quoting: Bool = false,
        mentioning: [String] = [], inThread: Bool = false, alsoInChannel: Bool = false, skipEnrichURL: Bool = false,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> Message {
        let parentId = self.message.parentId ?? (inThread ? self.message.id : nil)
        let message = OutgoingMessage(
            id: nextReplyId(), text: text, attachments: attachments, parentId: parentId,
            quotedMessageId: quoting ? self.message.id : nil, showInChannel: parentId != nil && alsoInChannel ? true : nil,
            mentionedUserIds: mentioning, skipEnrichURL: skipEnrichURL, extraData: extraData)
        return try await client.sendMessage(message, to: channel.cid, as: bot.user.id, progress: progress)
    }

    /// The id the next reply will have: `bot`, message and position, hashed into a UUID.
    func nextReplyId() -> String {
        BotContext.replyId(bot: bot.name, messageId: replyKey, index: replyCounter.next())
    }

    /// A deterministic UUID-shaped id for reply `index` of `bot` to `messageId`.
    public static func replyId(bot: String, messageId: String, index: Int) -> String {
        let digest = SHA256Hasher.hash("\(bot)\n\(messageId)\n\(index)".utf8)
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = HexDigits.string(bytes)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.map(String.init).joined(separator: "-")
    }

    /// Downloads an attachment of the message (refreshing its link if it expired) and returns the file.
    public func download(_ attachment: AnyChatMessageAttachment, to destination: URL? = nil) async throws -> URL {
        try await client.download(attachment, to: destination)
    }

    /// Downloads a typed attachment of the message.
    public func download<P>(_ attachment: ChatMessageAttachment<P>, to destination: URL? = nil) async throws -> URL {
        guard attachment.id.index < message.attachments.count else {
            throw BotError(code: .handlerFailed, message: "attachment \(attachment.id) is not part of the message", messageId: message.id)
        }
        return try await download(message.attachments[attachment.id.index], to: destination)
    }

    /// Downloads an attachment, reporting `.progress` and then `.completed`.
    public func fetch(_ attachment: AnyChatMessageAttachment, to destination: URL? = nil) -> AsyncThrowingStream<AttachmentFetchEvent, any Error> {
        client.fetchAttachment(attachment, to: destination)
    }

    /// Deletes a message (the one being handled by default): soft, or `hard`.
    public func delete(message: Message? = nil, hard: Bool = false) async throws {
        try await client.deleteMessage((message ?? self.message).id, hard: hard)
    }

    /// Deletes an uploaded file from the CDN.
    public func deleteFile(url: URL) async throws {
        try await channel.deleteFile(url: url)
    }

    /// Deletes an uploaded image from the CDN.
    public func deleteImage(url: URL) async throws {
        try await channel.deleteImage(url: url)
    }

    /// Reacts to a message (the one being handled by default).
    public func react(_ type: String, to message: Message? = nil) async throws {
        try await client.sendReaction(type, to: (message ?? self.message).id, as: bot.user.id)
    }

    /// Flags the message for moderators.
    public func flag(reason: String? = nil) async throws {
        try await client.flagMessage(message.id, reason: reason, as: bot.user.id)
    }

    /// Bans the message's sender from this channel for `timeout` (whole minutes, rounded up),
    /// or for good: their messages, reactions and uploads there are refused until it ends. With
    /// `deletingMessages`, the messages they posted in the channel are deleted too (bots get
    /// one `onUserMessagesDeleted` for them).
    public func banSender(reason: String? = nil, for timeout: Duration? = nil, deletingMessages: MessageDeletionMode? = nil) async throws {
        guard let sender = message.user?.id else {
            throw BotError(code: .handlerFailed, message: "the message names no sender to ban", messageId: message.id)
        }
        try await client.banUser(sender, in: channel.cid, reason: reason, timeout: timeout, deletingMessages: deletingMessages, as: bot.user.id)
    }

    /// Shows (or stops showing) the bot as typing in the channel.
    public func typing(_ isTyping: Bool = true) async throws {
        try await client.sendEvent(isTyping ? "typing.start" : "typing.stop", to: channel.cid, parentId: message.parentId, as: bot.user.id)
    }
}

/// What the handlers of one delivery have done so far: the replies they made, numbered in the
/// order they are made, and whether one started or ended a conversation.
final class ReplyCounter: Sendable {
    private let state = Locked((replies: 0, conversationChanged: false))
    func next() -> Int {
        state.withLock { state in
            defer { state.replies += 1 }
            return state.replies
        }
    }

    /// Whether a handler started or ended a conversation (so the turn that ran it leaves it be).
    var conversationChanged: Bool {
        get { state.withLock { $0.conversationChanged } }
        set { state.withLock { $0.conversationChanged = newValue } }
    }
}
