import ChatClient
import ChatModels
import Foundation
import Logging

/// One run of a scheduled handler in one of the bot's channels, and the way to post there.
///
/// A run is handled like a message of its channel: in order with the channel's other
/// deliveries, once (a scaled-out bot runs it on the node that holds the channel), and what it
/// posts gets ids derived from the bot, the schedule, the channel and the run's time, so a
/// run that is repeated posts nothing twice.
public struct ScheduledRun: Sendable {
    /// The schedule's name.
    public let name: String
    /// When the run was due.
    public let scheduledAt: Date
    /// Whether it fell while the bot was stopped and is made up now that it runs again.
    public let isMadeUp: Bool
    /// The channel it runs for.
    public let channel: ChatChannel
    /// The bot.
    public let bot: Bot
    /// The bot's logger, with the schedule's name.
    public let logger: Logger
    let poster: ChannelPoster

    /// The client.
    public var client: ChatClient { channel.client }

    init(name: String, scheduledAt: Date, isMadeUp: Bool, channel: ChatChannel, bot: Bot, logger: Logger, postKey: String) {
        self.name = name
        self.scheduledAt = scheduledAt
        self.isMadeUp = isMadeUp
        self.channel = channel
        self.bot = bot
        var logger = logger
        logger[metadataKey: "schedule"] = .string(name)
        self.logger = logger
        poster = ChannelPoster(channel: channel, bot: bot, postKey: postKey)
    }

    /// Posts in the channel, as the bot, with text, custom payloads and local files (uploaded
    /// first, with `progress`).
    @discardableResult
    public func post(
        text: String = "", attachments: [AnyAttachmentPayload] = [], extraData: [String: RawJSON] = [:], skipEnrichURL: Bool = false,
        progress: (@Sendable (Double) -> Void)? = nil
    ) async throws -> Message {
        try await poster.post(text: text, attachments: attachments, extraData: extraData, skipEnrichURL: skipEnrichURL, progress: progress)
    }
}
