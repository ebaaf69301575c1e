import ChatClient
import ChatModels
import Foundation
import Logging

/// A channel event a bot handles with ``Bot/onEvent(_:handler:)`` (a member added, a custom
/// event, ...), and the way to post in its channel.
///
/// It is handled like a message of its channel: in order with the channel's other deliveries,
/// once, and what it posts gets ids derived from the bot and the event, so an event handled
/// again (after a crash) posts nothing twice.
public struct ChannelEventContext: Sendable {
    /// The event, with its fields (`member`, `user`, `channel`, custom fields in `extraData`).
    public let event: Event
    /// The channel it happened in.
    public let channel: ChatChannel
    /// The bot.
    public let bot: Bot
    /// The bot's logger, with the event's type.
    public let logger: Logger
    let poster: ChannelPoster

    /// The client.
    public var client: ChatClient { channel.client }

    init(event: Event, channel: ChatChannel, bot: Bot, logger: Logger, postKey: String) {
        self.event = event
        self.channel = channel
        self.bot = bot
        var logger = logger
        logger[metadataKey: "event_type"] = .string(event.type.rawValue)
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
