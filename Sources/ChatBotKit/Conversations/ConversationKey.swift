import ChatModels

/// Whose conversation: one bot's with one person in one channel, or in one thread of it.
public struct ConversationKey: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The bot's name.
    public var bot: String
    /// The channel.
    public var channel: ChannelId
    /// The person's user id.
    public var user: String
    /// The thread's parent message id, when it is held in a thread.
    public var thread: String?

    /// A key.
    public init(bot: String, channel: ChannelId, user: String, thread: String? = nil) {
        self.bot = bot
        self.channel = channel
        self.user = user
        self.thread = thread
    }

    /// `bot with user in messaging:general` (`, thread …` when in one).
    public var description: String {
        "\(bot) with \(user) in \(channel)" + (thread.map { ", thread \($0)" } ?? "")
    }
}
