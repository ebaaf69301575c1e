import ChatModels
import Foundation

/// A channel whose history was emptied (`channel.truncated`) or that was deleted
/// (`channel.deleted`): the messages created up to `truncatedAt` left it, and the service
/// announces no `message.deleted` for them.
public struct ChannelTruncation: Sendable {
    /// The channel as the event rendered it.
    public let channel: Channel
    /// Messages created at or before this moment left the channel.
    public let truncatedAt: Date
    /// Whether the channel itself was deleted, not only its history.
    public let isChannelDeleted: Bool
    /// Who truncated or deleted it, when the event says.
    public let user: User?

    /// The channel's id.
    public var cid: ChannelId { channel.cid }

    /// A truncation of `channel`.
    public init(channel: Channel, truncatedAt: Date, isChannelDeleted: Bool, user: User?) {
        self.channel = channel
        self.truncatedAt = truncatedAt
        self.isChannelDeleted = isChannelDeleted
        self.user = user
    }
}
