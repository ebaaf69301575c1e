import ChatClient
import ChatModels
import Foundation
import Logging

/// What a before-send handler knows besides the message: who sent it, where, from what
/// client, and how long it has to decide (``deadline``). The message is not stored yet and has
/// no events; a handler that needs work done once it has answered (delete an upload, post a
/// notice) asks for it with ``afterAnswering(_:)``, which runs only when the decision it made
/// reached the service in time.
public struct BeforeSendContext: Sendable {
    /// Who sent the message.
    public let user: User?
    /// Its channel, when the request names one.
    public let channel: ChannelId?
    /// The channel as the request gave it (`config`, custom fields, …).
    public let channelJSON: JSONObject
    /// The client that sent it: `type` (`client` or `server`), `ip`, `user_agent`, `sdk` and
    /// `ext` (the `x-stream-ext` header it set), as the request gave them.
    public let requestInfo: JSONObject
    /// The message's JSON as the service sent it (its `id` is empty when the server makes it).
    public let messageJSON: JSONObject
    /// When the answer must be on its way: past it, the intake answers the default (let the
    /// message through, as the service itself does when its hook is late) and the handler is
    /// cancelled.
    public let deadline: ContinuousClock.Instant
    /// The bot the handler belongs to.
    public let bot: Bot
    /// A client acting as the bot.
    public let client: ChatClient
    /// The bot's logger.
    public let logger: Logger
    private let followUps: @Sendable (@escaping @Sendable () async throws -> Void) -> Void

    /// A context as the intake makes it; `followUps` keeps the work given to ``afterAnswering(_:)``.
    package init(
        user: User?, channel: ChannelId?, channelJSON: JSONObject, requestInfo: JSONObject, messageJSON: JSONObject,
        deadline: ContinuousClock.Instant, bot: Bot, client: ChatClient, logger: Logger,
        followUps: @escaping @Sendable (@escaping @Sendable () async throws -> Void) -> Void
    ) {
        self.user = user
        self.channel = channel
        self.channelJSON = channelJSON
        self.requestInfo = requestInfo
        self.messageJSON = messageJSON
        self.deadline = deadline
        self.bot = bot
        self.client = client
        self.logger = logger
        self.followUps = followUps
    }

    /// The time left until ``deadline`` (zero once it has passed).
    public var timeRemaining: Duration { max(deadline - .now, .zero) }

    /// Runs `work` once the decision has been answered (outside the deadline), if it was
    /// answered in time; its failure is logged. Work of one intake runs in the order given.
    public func afterAnswering(_ work: @escaping @Sendable () async throws -> Void) { followUps(work) }
}

/// A before-send handler: ``Bot/beforeSend(_:)``.
public typealias BeforeSendHandler = @Sendable (Message, BeforeSendContext) async throws -> BeforeSendDecision
