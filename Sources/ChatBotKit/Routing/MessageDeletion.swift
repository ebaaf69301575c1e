import ChatModels

/// A message deleted in one of the bot's channels, as its `message.deleted` event reports it.
///
/// Bots that keep something derived from messages (an archive, an index, a tally) use it to
/// forget what was deleted: a moderator may remove a file a moment after another bot stored it.
public struct MessageDeletion: Sendable {
    /// The message as the server rendered it when deleting it: `type` is `.deleted` and
    /// `deletedAt` is set; `id`, `cid` and `user` say which message it was.
    public let message: Message
    /// Whether it was removed for good (`hard_delete`) rather than soft-deleted.
    public let isHardDelete: Bool

    /// A deletion of `message`.
    public init(message: Message, isHardDelete: Bool) {
        self.message = message
        self.isHardDelete = isHardDelete
    }
}
