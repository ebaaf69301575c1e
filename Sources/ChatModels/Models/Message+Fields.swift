import Foundation

extension Message {
    /// Every field of a message, held once in a shared box (``FieldBox``).
    struct Fields: Sendable, Hashable {
        var id: String
        var cid: ChannelId?
        var text = ""
        var html: String?
        var type = MessageType.regular
        var user: User?
        var attachments: [AnyChatMessageAttachment] = []
        var parentId: String?
        var showInChannel: Bool?
        var quotedMessageId: String?
        var mentionedUsers: [User] = []
        var latestReactions: [Reaction] = []
        var ownReactions: [Reaction] = []
        var reactionCounts: [String: Int] = [:]
        var reactionScores: [String: Int] = [:]
        var replyCount: Int?
        var createdAt: Date?
        var updatedAt: Date?
        var deletedAt: Date?
        var isPinned: Bool?
        var isSilent: Bool?
        var command: String?
        var args: String?
        var server = LazyMembers()
        var custom = LazyMembers()
        var quotedBox: IndirectBox<Message>?
    }
}
