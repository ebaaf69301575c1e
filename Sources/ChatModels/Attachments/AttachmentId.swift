/// Identifies one attachment: its message and its position in that message.
///
/// This is the durable reference to keep instead of a CDN link, which expires.
public struct AttachmentId: Hashable, Sendable, CustomStringConvertible {
    /// The channel of the message, when known.
    public let cid: ChannelId?
    /// The message id.
    public let messageId: String
    /// The position in the message's `attachments` array.
    public let index: Int

    /// An attachment id.
    public init(cid: ChannelId?, messageId: String, index: Int) {
        self.cid = cid
        self.messageId = messageId
        self.index = index
    }

    /// `cid/messageId/index`.
    public var description: String { "\(cid?.rawValue ?? "?")/\(messageId)/\(index)" }
}
