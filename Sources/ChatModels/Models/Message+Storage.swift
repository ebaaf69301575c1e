import Foundation

extension Message {
    /// Every field of a message, held once in a shared ``Storage``.
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

    /// The fields behind one reference, so that passing a message around (events, handlers,
    /// async streams) moves a pointer instead of a few hundred bytes, and copying it costs one
    /// retain instead of one per field. Immutable: a setter replaces the storage.
    final class Storage: Sendable, Hashable {
        let fields: Fields
        init(_ fields: consuming Fields) { self.fields = fields }
        static func == (lhs: Storage, rhs: Storage) -> Bool { lhs === rhs || lhs.fields == rhs.fields }
        func hash(into hasher: inout Hasher) { hasher.combine(fields) }
    }

    /// Changes a field, copy-on-write.
    mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields)
    }
}
