import ChatModels
import Foundation

/// A user's messages in a channel deleted at once (`user.messages.deleted`): by a ban with
/// `delete_messages`, or with the user's deletion or deactivation. The service announces no
/// `message.deleted` for each, so a bot that keeps something derived from them forgets it here.
public struct UserMessagesDeletion: Sendable {
    /// The channel the messages were in.
    public let cid: ChannelId
    /// Whose messages they were.
    public let user: User
    /// The messages `user` posted up to this moment were deleted.
    public let deletedAt: Date
    /// Whether they were removed for good, not kept as deleted messages a moderator can undelete.
    public let isHardDelete: Bool

    /// A deletion of `user`'s messages in `cid`.
    public init(cid: ChannelId, user: User, deletedAt: Date, isHardDelete: Bool) {
        self.cid = cid
        self.user = user
        self.deletedAt = deletedAt
        self.isHardDelete = isHardDelete
    }
}
