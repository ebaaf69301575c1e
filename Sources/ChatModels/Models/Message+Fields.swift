@_spi(JSONEngine) import ChatJSON
import Foundation

extension Message {
    /// Every field of a message, held once in a shared box (``FieldBox``).
    struct Fields: Sendable, Hashable {
        var id: String
        var cid: ChannelId?
        var texts = Texts()
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

    /// The text and HTML of a message, left in the document the message was read from until
    /// read (see `TextField`); equal when the text is, wherever it is kept.
    struct Texts: Sendable, Hashable {
        var text = TextField("")
        var html = TextField.none
        /// The document, while the text or the HTML is still unread there.
        var source = Data()

        var textValue: String { text.value(in: source) ?? "" }
        var htmlValue: String? { html.value(in: source) }

        static func == (lhs: Texts, rhs: Texts) -> Bool { lhs.textValue == rhs.textValue && lhs.htmlValue == rhs.htmlValue }

        func hash(into hasher: inout Hasher) {
            hasher.combine(textValue)
            hasher.combine(htmlValue)
        }
    }
}
