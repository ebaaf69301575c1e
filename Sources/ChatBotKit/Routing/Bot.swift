import ChatClient
import ChatLocking
import ChatModels
import Logging

/// A chat bot: handlers routed by attachment type, by command and by predicate.
///
/// ```swift
/// let bot = Bot(name: "workout")
/// bot.on(WorkoutAttachmentPayload.self) { workout, context in
///     try await context.reply(text: "Nice \(workout.workoutType ?? "workout")!")
/// }
/// bot.command("stats") { _, context in try await context.reply(text: "…") }
/// ```
/// A message with several attachments reaches every matching route, once per matching
/// attachment. The bot never handles its own messages, nor their edits or deletion.
public final class Bot: Sendable {
    typealias AttachmentHandler = @Sendable (AnyChatMessageAttachment, (any AttachmentPayload)?, BotContext) async throws -> Void

    struct AttachmentRoute: Sendable {
        let type: AttachmentType
        /// Whether the handler wants the decoded payload (a typed route).
        let isTyped: Bool
        let handler: AttachmentHandler
    }

    struct Routes: Sendable {
        var attachments: [AttachmentRoute] = []
        var commands: [String: [@Sendable (CommandInvocation, BotContext) async throws -> Void]] = [:]
        var predicates: [(@Sendable (Message) -> Bool, @Sendable (BotContext) async throws -> Void)] = []
        var messages: [@Sendable (BotContext) async throws -> Void] = []
        var deletions: [@Sendable (MessageDeletion, BotContext) async throws -> Void] = []
        var undeletions: [@Sendable (BotContext) async throws -> Void] = []
        var events: [EventType: [@Sendable (ChannelEventContext) async throws -> Void]] = [:]
        var additions: [@Sendable (ChannelEventContext) async throws -> Void] = []
        var updates: [@Sendable (BotContext) async throws -> Void] = []
        var reactions: [(type: String?, isRemoved: Bool, handler: @Sendable (Reaction, BotContext) async throws -> Void)] = []
        var truncations: [@Sendable (ChannelTruncation, ChatChannel) async throws -> Void] = []
        var reminders: [@Sendable (MessageReminder, BotContext) async throws -> Void] = []
        var pollVotes: [@Sendable (PollVote, BotContext) async throws -> Void] = []
        var pollClosings: [@Sendable (Poll, BotContext) async throws -> Void] = []
        var locations: [@Sendable (SharedLocation, BotContext) async throws -> Void] = []
        var userMessagesDeletions: [@Sendable (UserMessagesDeletion, ChatChannel) async throws -> Void] = []
        var unknownAttachments: [@Sendable (AnyChatMessageAttachment, BotContext) async throws -> Void] = []
        var decodingFailures: [@Sendable (AttachmentDecodingFailure, BotContext) async throws -> Void] = []
        var errors: [@Sendable (BotError, BotContext?) async -> Void] = []
        var middleware: [any BotMiddleware] = []
        var customCommands: [String: CustomCommand] = [:]
        var beforeSend: [BeforeSendHandler] = []
        var conversations: [String: ConversationRoute] = [:]
        var schedules: [String: ScheduleRoute] = [:]
        var registry = AttachmentPayloadRegistry()
    }

    /// The bot's name; reply ids are derived from it.
    public let name: String
    /// The user the bot acts as.
    public let user: User
    let routes = Locked(Routes())
    let conversationStoreBox = Locked<any ConversationStore>(MemoryConversationStore())
    /// Its streamed replies being generated, which users' `ai_indicator.stop` events stop.
    public let generations = GenerationRegistry()

    /// A bot acting as `user` (by default a user named after the bot).
    public init(name: String, user: User? = nil) {
        self.name = name
        self.user = user ?? User(id: name, name: name)
    }

    /// Handles every attachment that decodes as `P` (registering `P` for its type), typed:
    /// `bot.on(WorkoutAttachmentPayload.self) { workout, context in … }`.
    public func on<P: AttachmentPayload>(
        _ payloadType: P.Type, handler: @escaping @Sendable (ChatMessageAttachment<P>, BotContext) async throws -> Void
    ) {
        routes.withLock { routes in
            routes.registry.registerAttachment(payloadType)
            routes.attachments.append(
                AttachmentRoute(type: P.type, isTyped: true) { attachment, payload, context in
                    guard let typed = payload as? P else { return }
                    try await handler(
                        ChatMessageAttachment(id: attachment.id, type: attachment.type, payload: typed, uploadingState: nil), context)
                })
        }
    }

    /// Handles every attachment of `type` (built-in or not), type-erased:
    /// `bot.on(.file) { attachment, context in … }`.
    public func on(_ type: AttachmentType, handler: @escaping @Sendable (AnyChatMessageAttachment, BotContext) async throws -> Void) {
        routes.withLock { routes in
            routes.attachments.append(
                AttachmentRoute(type: type, isTyped: false) { attachment, _, context in try await handler(attachment, context) })
        }
    }

    /// Handles the slash command `/name` (case-insensitive).
    public func command(_ name: String, handler: @escaping @Sendable (CommandInvocation, BotContext) async throws -> Void) {
        let key = name.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        routes.withLock { $0.commands[key, default: []].append(handler) }
    }

    /// Handles messages for which `predicate` is true.
    public func on(where predicate: @escaping @Sendable (Message) -> Bool, handler: @escaping @Sendable (BotContext) async throws -> Void) {
        routes.withLock { $0.predicates.append((predicate, handler)) }
    }

    /// Handles every message.
    public func onMessage(_ handler: @escaping @Sendable (BotContext) async throws -> Void) {
        routes.withLock { $0.messages.append(handler) }
    }

    /// Handles the deletion of a message someone else posted in the bot's channels, soft or
    /// hard. It runs after every handler of that message has finished (a channel's events are
    /// handled in order), so what those handlers stored can be removed here. `context.message`
    /// is the deleted message. Middleware runs around deletion handlers too
    /// (`context.trigger` is `.deletion`).
    public func onMessageDeleted(_ handler: @escaping @Sendable (MessageDeletion, BotContext) async throws -> Void) {
        routes.withLock { $0.deletions.append(handler) }
    }

    /// Handles the undeletion of a message someone else posted in the bot's channels: a
    /// moderator restored it, with its text and attachments (`context.message`). A bot that
    /// forgot the message in ``onMessageDeleted(_:)`` takes it back in here. Attachment routes
    /// do not run again, so nothing is answered twice. It runs in order with the channel's
    /// other messages; middleware runs around it (`context.trigger` is `.undeletion`).
    public func onMessageUndeleted(_ handler: @escaping @Sendable (BotContext) async throws -> Void) {
        routes.withLock { $0.undeletions.append(handler) }
    }

    /// Handles each edit of a message someone else posted in the bot's channels (text,
    /// attachments or custom fields changed); `context.message` is the message as edited.
    /// Attachment routes do not run again for an edit: a bot that judges files judges the
    /// edited message's attachments here, or an edit could add what a new message may not.
    /// Edits are handled in order with the channel's other messages. Middleware runs around
    /// edit handlers too (`context.trigger` is `.edit`), so a filter that keeps some users'
    /// messages from the bot keeps their edits away as well.
    public func onMessageUpdated(_ handler: @escaping @Sendable (BotContext) async throws -> Void) {
        routes.withLock { $0.updates.append(handler) }
    }

    /// Handles a reaction of `type` (any type when nil) added to a message in the bot's channels
    /// by someone other than the bot, to any message, the bot's own answers included (a 👍 or a
    /// `remove` on an answer is how people answer a bot); `context.message` is the message and
    /// `reaction.userId` who reacted (taken from the event when the reaction itself lacks it). A reaction replaced by another (`enforce_unique`) counts as
    /// added. Reactions are handled in order with the channel's messages, once each; middleware
    /// runs around them (`context.trigger` is `.reaction`). A bot with no reaction handler
    /// takes no reactions at all (they do not count as its deliveries).
    public func onReaction(_ type: String? = nil, handler: @escaping @Sendable (Reaction, BotContext) async throws -> Void) {
        routes.withLock { $0.reactions.append((type, false, handler)) }
    }

    /// Handles a reaction of `type` (any type when nil) taken off a message in the bot's
    /// channels by someone other than the bot; as ``onReaction(_:handler:)`` otherwise.
    public func onReactionRemoved(_ type: String? = nil, handler: @escaping @Sendable (Reaction, BotContext) async throws -> Void) {
        routes.withLock { $0.reactions.append((type, true, handler)) }
    }

    /// Handles the truncation of one of the bot's channels (its history emptied up to
    /// `truncatedAt`) and its deletion (`isChannelDeleted`). The service sends no
    /// `message.deleted` for the messages that leave, so a bot that keeps something derived
    /// from them forgets it here. It runs in order with the channel's messages, after the
    /// handlers of those sent before. Middleware does not run around it: it concerns no one
    /// message.
    public func onChannelTruncated(_ handler: @escaping @Sendable (ChannelTruncation, ChatChannel) async throws -> Void) {
        routes.withLock { $0.truncations.append(handler) }
    }

    /// Handles the deletion of all of one user's messages in a channel at once
    /// (`user.messages.deleted`: a ban with `delete_messages`, or the user's deletion or
    /// deactivation with its messages; a `user.deleted` with `mark_messages_deleted`, which names
    /// no channel, counts for each of the bot's channels). The service sends no
    /// `message.deleted` for each, so a bot that keeps something derived from them forgets it
    /// here: the messages of `deletion.user` posted up to `deletion.deletedAt`. It runs in order
    /// with the channel's messages, once, never for the bot's own messages. Middleware does not
    /// run around it: it concerns no one message.
    public func onUserMessagesDeleted(_ handler: @escaping @Sendable (UserMessagesDeletion, ChatChannel) async throws -> Void) {
        routes.withLock { $0.userMessagesDeletions.append(handler) }
    }

    /// Handles the bot's own reminders as they come due: a follow-up on a message that the
    /// service keeps (set with `context.remind(at:)`), so it outlives restarts and is run by
    /// whichever node holds the channel. `context.message` is the
    /// message as it is now and `context.trigger` is `.reminderDue`; `context.reply` answers in
    /// its thread. Once per time the reminder is due (moved and due again, it runs again), in
    /// order with the channel's messages, middleware around it; with a checkpoint
    /// (`catch_up`), those that came due while the bot was stopped run when it starts. The
    /// reminder stays until deleted (`deleteReminder`); other users' reminders never reach it.
    ///
    /// ```swift
    /// bot.onReminderDue { reminder, context in
    ///     try await context.reply(text: "A day has passed: how did it go?")
    /// }
    /// ```
    public func onReminderDue(_ handler: @escaping @Sendable (MessageReminder, BotContext) async throws -> Void) {
        routes.withLock { $0.reminders.append(handler) }
    }

    /// Handles the channel events of `type` in the bot's channels: a member added or removed
    /// (`.memberAdded`, `.memberRemoved`, with `event.member`), a channel updated, or a custom
    /// event an app sent with `sendEvent`, with its fields in `event.extraData`. They run in
    /// order with the channel's messages, once each (a reconnect's or a restart's `/sync` does
    /// not bring them twice), and never for what the bot did or was done to it (its own
    /// membership). Messages, reactions and truncations reach their own handlers, never these.
    /// Middleware does not run around them: they concern no one message.
    ///
    /// ```swift
    /// bot.onEvent(.memberAdded) { context in
    ///     try await context.post(text: "Welcome, \(context.event.member?.user?.name ?? "friend")!")
    /// }
    /// ```
    public func onEvent(_ type: EventType, handler: @escaping @Sendable (ChannelEventContext) async throws -> Void) {
        routes.withLock { $0.events[type, default: []].append(handler) }
    }

    /// Handles the bot being added to a channel (it follows the channel from then on), to say
    /// hello or set something up there: `context.event.member` is the bot's membership and
    /// `context.channel` the channel. Once per addition, in order with the channel's messages;
    /// not for the channels of its configuration, which it joins itself when it starts.
    public func onAddedToChannel(_ handler: @escaping @Sendable (ChannelEventContext) async throws -> Void) {
        routes.withLock { $0.additions.append(handler) }
    }

    /// Handles attachments that no route and no registered payload type knows.
    public func onUnknownAttachment(_ handler: @escaping @Sendable (AnyChatMessageAttachment, BotContext) async throws -> Void) {
        routes.withLock { $0.unknownAttachments.append(handler) }
    }

    /// Handles attachments whose JSON does not fit their registered payload type (the failure names the field).
    public func onDecodingFailure(_ handler: @escaping @Sendable (AttachmentDecodingFailure, BotContext) async throws -> Void) {
        routes.withLock { $0.decodingFailures.append(handler) }
    }

    /// Called when a handler throws (the bot keeps running).
    public func onError(_ handler: @escaping @Sendable (BotError, BotContext?) async -> Void) {
        routes.withLock { $0.errors.append(handler) }
    }

    /// Adds middleware around the handling of every message, edit and deletion; the first
    /// added runs outermost.
    public func use(_ middleware: some BotMiddleware) {
        routes.withLock { $0.middleware.append(middleware) }
    }

    /// Adds middleware that runs outside all the middleware added so far (`bots run` puts an
    /// entry's `sender_limit` there, around whatever its kind added).
    package func useOutermost(_ middleware: some BotMiddleware) {
        routes.withLock { $0.middleware.insert(middleware, at: 0) }
    }

    /// Registers a payload type without a route (so it decodes for other handlers).
    public func registerAttachment<P: AttachmentPayload>(_ payloadType: P.Type) {
        routes.withLock { $0.registry.registerAttachment(payloadType) }
    }

    /// The payload types this bot decodes.
    public var registry: AttachmentPayloadRegistry { routes.withLock { $0.registry } }

    /// Whether it has reaction handlers: a bot without takes no reaction deliveries at all.
    var handlesReactions: Bool { routes.withLock { !$0.reactions.isEmpty } }

    /// Whether it has reminder handlers: a bot without takes no reminders.
    var handlesReminders: Bool { routes.withLock { !$0.reminders.isEmpty } }

    /// Whether it has poll vote handlers: a bot without takes no votes.
    var handlesPollVotes: Bool { routes.withLock { !$0.pollVotes.isEmpty } }

    /// Whether it has handlers of closed polls.
    var handlesPollClosings: Bool { routes.withLock { !$0.pollClosings.isEmpty } }

    /// Whether the bot has handlers for its addition to a channel.
    var handlesAdditions: Bool { routes.withLock { !$0.additions.isEmpty } }

    /// Whether the bot has handlers for channel events of `type`.
    func handlesEvents(of type: EventType) -> Bool { routes.withLock { $0.events[type] != nil } }

    /// Takes every route, middleware and payload type of `other` in place of its own (a
    /// reconfigured bot keeps its identity, its connection and what it has handled).
    func adoptRoutes(of other: Bot) {
        let adopted = other.routes.withLock { $0 }
        routes.withLock { $0 = adopted }
    }
}

import Foundation
