@_spi(JSONEngine) import ChatJSON
import Foundation

/// A chat message (`MessageResponse` on the wire).
///
/// Attachments stay raw (``AnyChatMessageAttachment``) until asked for as a payload type, so a
/// message whose attachments are unknown or malformed still decodes. Fields the server defines
/// but this type does not model are kept in ``serverFields``; everything else is custom data in
/// ``extraData``. Both are written back flat.
public struct Message: JSONModel, ReaderDecodable, Hashable, Identifiable, Codable, FieldBox {
    /// Server-defined message fields that are neither modelled nor custom data.
    public static let reservedKeys: Set<String> = [
        "member", "shadowed", "deleted_reply_count", "mentioned_channel", "mentioned_here", "mentioned_roles",
        "mentioned_group_ids", "pinned_at", "pinned_by", "pin_expires", "restricted_visibility", "reaction_groups",
        "thread_participants", "i18n", "command_info", "poll", "poll_id", "draft", "reminder", "moderation",
        "moderation_details", "image_labels", "mml", "channel", "deleted_for_me", "message_text_updated_at",
        "before_message_send_failed", "shared_location", "reply_count_updated_at", "status",
    ]

    enum Key: String, CaseIterable, Sendable {
        case id, cid, text, html, type, user, attachments, pinned, silent, command, args
        case parentId = "parent_id", showInChannel = "show_in_channel", quotedMessageId = "quoted_message_id"
        case quotedMessage = "quoted_message", mentionedUsers = "mentioned_users", latestReactions = "latest_reactions"
        case ownReactions = "own_reactions", reactionCounts = "reaction_counts", reactionScores = "reaction_scores"
        case replyCount = "reply_count", createdAt = "created_at", updatedAt = "updated_at", deletedAt = "deleted_at"
    }
    static let keys = KeyTable<Key>()

    /// The message types the API defines, matched on their bytes so that no string is made
    /// for them.
    enum KnownType: String, CaseIterable, Sendable {
        case regular, ephemeral, error, reply, system, deleted
    }
    static let knownTypes = KeyTable<KnownType>()

    static let customFilter = MemberFilter(excluding: keys.names.union(reservedKeys))

    /// Whether `key` is a field the server defines (modelled or reserved), so not a custom field.
    public static func isServerOwned(_ key: String) -> Bool { !customFilter.accepts(key) }
    static let serverFilter = MemberFilter(only: reservedKeys)

    /// The message id (client-generated ids are allowed).
    public var id: String {
        get { storage.value.id }
        set { update { $0.id = newValue } }
    }

    /// The channel.
    public var cid: ChannelId? {
        get { storage.value.cid }
        set { update { $0.cid = newValue } }
    }

    /// The text.
    public var text: String {
        get { storage.value.texts.textValue }
        set { update { $0.texts.text = TextField(newValue) } }
    }

    /// The server's HTML rendering of the text.
    public var html: String? {
        get { storage.value.texts.htmlValue }
        set { update { $0.texts.html = TextField(newValue) } }
    }

    /// The kind of message.
    public var type: MessageType {
        get { storage.value.type }
        set { update { $0.type = newValue } }
    }

    /// The author.
    public var user: User? {
        get { storage.value.user }
        set { update { $0.user = newValue } }
    }

    /// The attachments, raw and classified.
    public var attachments: [AnyChatMessageAttachment] {
        get { storage.value.attachments }
        set { update { $0.attachments = newValue } }
    }

    /// The thread parent, for replies.
    public var parentId: String? {
        get { storage.value.parentId }
        set { update { $0.parentId = newValue } }
    }

    /// Whether a thread reply is also shown in the channel.
    public var showInChannel: Bool? {
        get { storage.value.showInChannel }
        set { update { $0.showInChannel = newValue } }
    }

    /// The quoted message id.
    public var quotedMessageId: String? {
        get { storage.value.quotedMessageId }
        set { update { $0.quotedMessageId = newValue } }
    }

    /// Mentioned users.
    public var mentionedUsers: [User] {
        get { storage.value.mentionedUsers }
        set { update { $0.mentionedUsers = newValue } }
    }

    /// The latest reactions.
    public var latestReactions: [Reaction] {
        get { storage.value.latestReactions }
        set { update { $0.latestReactions = newValue } }
    }

    /// The current user's reactions.
    public var ownReactions: [Reaction] {
        get { storage.value.ownReactions }
        set { update { $0.ownReactions = newValue } }
    }

    /// Reaction counts by type.
    public var reactionCounts: [String: Int] {
        get { storage.value.reactionCounts }
        set { update { $0.reactionCounts = newValue } }
    }

    /// Reaction score sums by type.
    public var reactionScores: [String: Int] {
        get { storage.value.reactionScores }
        set { update { $0.reactionScores = newValue } }
    }

    /// Number of thread replies.
    public var replyCount: Int? {
        get { storage.value.replyCount }
        set { update { $0.replyCount = newValue } }
    }

    /// When it was created.
    public var createdAt: Date? {
        get { storage.value.createdAt }
        set { update { $0.createdAt = newValue } }
    }

    /// When it last changed.
    public var updatedAt: Date? {
        get { storage.value.updatedAt }
        set { update { $0.updatedAt = newValue } }
    }

    /// When it was deleted.
    public var deletedAt: Date? {
        get { storage.value.deletedAt }
        set { update { $0.deletedAt = newValue } }
    }

    /// Whether it is pinned.
    public var isPinned: Bool? {
        get { storage.value.isPinned }
        set { update { $0.isPinned = newValue } }
    }

    /// Whether it was sent silently.
    public var isSilent: Bool? {
        get { storage.value.isSilent }
        set { update { $0.isSilent = newValue } }
    }

    /// The slash command (`giphy`).
    public var command: String? {
        get { storage.value.command }
        set { update { $0.command = newValue } }
    }

    /// The command's arguments.
    public var args: String? {
        get { storage.value.args }
        set { update { $0.args = newValue } }
    }

    private var server: LazyMembers {
        get { storage.value.server }
        set { update { $0.server = newValue } }
    }

    private var custom: LazyMembers {
        get { storage.value.custom }
        set { update { $0.custom = newValue } }
    }

    /// The fields (see `Message+Fields.swift`).
    var storage: IndirectBox<Fields>

    /// Server fields this type does not model, written back unchanged.
    public var serverFields: [String: RawJSON] {
        get { server.value }
        set { server.value = newValue }
    }

    /// Custom fields, flat on the wire.
    public var extraData: [String: RawJSON] {
        get { custom.value }
        set { custom.value = newValue }
    }

    private var quotedBox: IndirectBox<Message>? {
        get { storage.value.quotedBox }
        set { update { $0.quotedBox = newValue } }
    }

    /// The quoted message, when the server included it.
    public var quotedMessage: Message? {
        get { quotedBox?.value }
        set { quotedBox = newValue.map(IndirectBox.init) }
    }

    /// A message with the given fields.
    public init(
        id: String, cid: ChannelId? = nil, text: String = "", html: String? = nil, type: MessageType = .regular,
        user: User? = nil, attachments: [AnyChatMessageAttachment] = [], parentId: String? = nil,
        showInChannel: Bool? = nil, quotedMessageId: String? = nil, mentionedUsers: [User] = [],
        latestReactions: [Reaction] = [], ownReactions: [Reaction] = [], reactionCounts: [String: Int] = [:],
        reactionScores: [String: Int] = [:], replyCount: Int? = nil, createdAt: Date? = nil, updatedAt: Date? = nil,
        deletedAt: Date? = nil, isPinned: Bool? = nil, isSilent: Bool? = nil, command: String? = nil,
        args: String? = nil, serverFields: [String: RawJSON] = [:], extraData: [String: RawJSON] = [:]
    ) {
        var fields = Fields(id: id)
        fields.cid = cid
        fields.texts.text = TextField(text)
        fields.texts.html = TextField(html)
        fields.type = type
        fields.user = user
        fields.attachments = attachments
        fields.parentId = parentId
        fields.showInChannel = showInChannel
        fields.quotedMessageId = quotedMessageId
        fields.mentionedUsers = mentionedUsers
        fields.latestReactions = latestReactions
        fields.ownReactions = ownReactions
        fields.reactionCounts = reactionCounts
        fields.reactionScores = reactionScores
        fields.replyCount = replyCount
        fields.createdAt = createdAt
        fields.updatedAt = updatedAt
        fields.deletedAt = deletedAt
        fields.isPinned = isPinned
        fields.isSilent = isSilent
        fields.command = command
        fields.args = args
        fields.server = LazyMembers(serverFields)
        fields.custom = LazyMembers(extraData)
        storage = IndirectBox(fields)
    }
}
