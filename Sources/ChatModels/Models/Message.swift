import Foundation

/// A chat message (`MessageResponse` on the wire).
///
/// Attachments stay raw (``AnyChatMessageAttachment``) until asked for as a payload type, so a
/// message whose attachments are unknown or malformed still decodes. Fields the server defines
/// but this type does not model are kept in ``serverFields``; everything else is custom data in
/// ``extraData``. Both are written back flat.
public struct Message: JSONModel, ReaderDecodable, Hashable, Identifiable, Codable {
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

    static let customFilter = MemberFilter(excluding: keys.names.union(reservedKeys))

    /// Whether `key` is a field the server defines (modelled or reserved), so not a custom field.
    public static func isServerOwned(_ key: String) -> Bool { !customFilter.accepts(key) }
    static let serverFilter = MemberFilter(only: reservedKeys)

    /// The message id (client-generated ids are allowed).
    public var id: String
    /// The channel.
    public var cid: ChannelId?
    /// The text.
    public var text: String
    /// The server's HTML rendering of the text.
    public var html: String?
    /// The kind of message.
    public var type: MessageType
    /// The author.
    public var user: User?
    /// The attachments, raw and classified.
    public var attachments: [AnyChatMessageAttachment]
    /// The thread parent, for replies.
    public var parentId: String?
    /// Whether a thread reply is also shown in the channel.
    public var showInChannel: Bool?
    /// The quoted message id.
    public var quotedMessageId: String?
    /// Mentioned users.
    public var mentionedUsers: [User]
    /// The latest reactions.
    public var latestReactions: [Reaction]
    /// The current user's reactions.
    public var ownReactions: [Reaction]
    /// Reaction counts by type.
    public var reactionCounts: [String: Int]
    /// Reaction score sums by type.
    public var reactionScores: [String: Int]
    /// Number of thread replies.
    public var replyCount: Int?
    /// When it was created.
    public var createdAt: Date?
    /// When it last changed.
    public var updatedAt: Date?
    /// When it was deleted.
    public var deletedAt: Date?
    /// Whether it is pinned.
    public var isPinned: Bool?
    /// Whether it was sent silently.
    public var isSilent: Bool?
    /// The slash command (`giphy`).
    public var command: String?
    /// The command's arguments.
    public var args: String?
    private var server: LazyMembers
    private var custom: LazyMembers

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

    private var quotedBox: IndirectBox<Message>?

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
        self.id = id
        self.cid = cid
        self.text = text
        self.html = html
        self.type = type
        self.user = user
        self.attachments = attachments
        self.parentId = parentId
        self.showInChannel = showInChannel
        self.quotedMessageId = quotedMessageId
        self.mentionedUsers = mentionedUsers
        self.latestReactions = latestReactions
        self.ownReactions = ownReactions
        self.reactionCounts = reactionCounts
        self.reactionScores = reactionScores
        self.replyCount = replyCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.isPinned = isPinned
        self.isSilent = isSilent
        self.command = command
        self.args = args
        self.server = LazyMembers(serverFields)
        self.custom = LazyMembers(extraData)
    }

    /// Reads a message from JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    /// Attachments that are not JSON objects are skipped, as Stream's SDK does; a wrong type in
    /// any modelled field is an error naming that field.
    init(reader: JSONReader, node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        // Fields are collected in locals and the message initialized once at the end: assigning
        // them one by one to `self` made the optimizer copy the whole struct.
        var id: String?
        var cid: ChannelId?
        var text = ""
        var html: String?
        var type = MessageType.regular
        var user: User?
        var attachmentsNode: Int?
        var parentId: String?
        var showInChannel: Bool?
        var quotedMessageId: String?
        var quotedMessage: Message?
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
        var hasUnmodelled = false
        for (keyNode, value) in reader.members(object) {
            guard let key = Message.keys.match(reader, keyNode) else {
                hasUnmodelled = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .id: id = try reader.readString(value)
                case .cid: cid = reader.isNull(value) ? nil : try reader.readChannelId(value)
                case .text: text = try reader.readOptionalString(value) ?? ""
                case .html: html = try reader.readOptionalString(value)
                case .type: type = MessageType(rawValue: try reader.readOptionalString(value) ?? "regular")
                case .user: user = try reader.readOptionalModel(User.self, value)
                case .attachments:
                    if !reader.isNull(value) {
                        guard reader.kind(value) == .array else { throw reader.mismatch(value, expected: "an array") }
                        attachmentsNode = value
                    }
                case .parentId: parentId = try reader.readOptionalString(value)
                case .showInChannel: showInChannel = try reader.readOptionalBool(value)
                case .quotedMessageId: quotedMessageId = try reader.readOptionalString(value)
                case .quotedMessage: quotedMessage = try reader.readOptionalModel(Message.self, value)
                case .mentionedUsers: mentionedUsers = try Message.readMentions(reader, value)
                case .latestReactions: latestReactions = try reader.readModels(Reaction.self, value)
                case .ownReactions: ownReactions = try reader.readModels(Reaction.self, value)
                case .reactionCounts: reactionCounts = try reader.readIntMap(value)
                case .reactionScores: reactionScores = try reader.readIntMap(value)
                case .replyCount: replyCount = try reader.readOptionalInt(value)
                case .createdAt: createdAt = try reader.readOptionalDate(value)
                case .updatedAt: updatedAt = try reader.readOptionalDate(value)
                case .deletedAt: deletedAt = try reader.readOptionalDate(value)
                case .pinned: isPinned = try reader.readOptionalBool(value)
                case .silent: isSilent = try reader.readOptionalBool(value)
                case .command: command = try reader.readOptionalString(value)
                case .args: args = try reader.readOptionalString(value)
                }
            } catch {
                throw error.prefixed(key.rawValue)
            }
        }
        guard let id else { throw .missing("id") }
        var attachments: [AnyChatMessageAttachment] = []
        if let attachmentsNode {
            attachments.reserveCapacity(reader.childCount(attachmentsNode))
            var position = 0
            for element in reader.elements(attachmentsNode) {
                defer { position += 1 }
                guard reader.kind(element) == .object else { continue }
                attachments.append(
                    AnyChatMessageAttachment(
                        id: AttachmentId(cid: cid, messageId: id, index: position),
                        type: AttachmentClassifier.classify(reader, element),
                        payload: reader.slice(element)))
            }
        }
        self.id = id
        self.cid = cid
        self.text = text
        self.html = html
        self.type = type
        self.user = user
        self.attachments = attachments
        self.parentId = parentId
        self.showInChannel = showInChannel
        self.quotedMessageId = quotedMessageId
        self.quotedBox = quotedMessage.map(IndirectBox.init)
        self.mentionedUsers = mentionedUsers
        self.latestReactions = latestReactions
        self.ownReactions = ownReactions
        self.reactionCounts = reactionCounts
        self.reactionScores = reactionScores
        self.replyCount = replyCount
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.isPinned = isPinned
        self.isSilent = isSilent
        self.command = command
        self.args = args
        if hasUnmodelled {
            server = reader.lazyMembers(object, filter: Message.serverFilter)
            custom = reader.lazyMembers(object, filter: Message.customFilter)
        } else {
            server = LazyMembers()
            custom = LazyMembers()
        }
    }

    /// Mentions are user objects in responses and bare ids in requests; both are accepted.
    static func readMentions(_ reader: JSONReader, _ node: Int) throws(JSONError) -> [User] {
        if reader.isNull(node) { return [] }
        guard reader.kind(node) == .array else { throw reader.mismatch(node, expected: "an array") }
        var users: [User] = []
        var position = 0
        for element in reader.elements(node) {
            do {
                users.append(reader.kind(element) == .string ? User(id: try reader.string(element)) : try User(reader: reader, node: element))
            } catch {
                throw error.prefixed(index: position)
            }
            position += 1
        }
        return users
    }

    /// The message's JSON: modelled fields, server fields and custom fields, all flat.
    public var json: RawJSON {
        var builder = JSONObjectBuilder()
        builder.set("id", id)
        builder.set("cid", cid?.rawValue)
        builder.set("text", text)
        builder.set("html", html)
        builder.set("type", type.rawValue)
        builder.set("user", user)
        builder.object["attachments"] = .array(attachments.map { .object($0.rawJSON) })
        builder.set("parent_id", parentId)
        builder.set("show_in_channel", showInChannel)
        builder.set("quoted_message_id", quotedMessageId)
        builder.set("quoted_message", quotedMessage)
        builder.set("mentioned_users", mentionedUsers)
        builder.set("latest_reactions", latestReactions)
        builder.set("own_reactions", ownReactions)
        builder.set("reaction_counts", reactionCounts)
        builder.set("reaction_scores", reactionScores)
        builder.set("reply_count", replyCount)
        builder.set("created_at", createdAt)
        builder.set("updated_at", updatedAt)
        builder.set("deleted_at", deletedAt)
        builder.set("pinned", isPinned)
        builder.set("silent", isSilent)
        builder.set("command", command)
        builder.set("args", args)
        builder.merge(serverFields)
        builder.merge(extraData)
        return builder.json
    }

    /// Decodes through any decoder.
    public init(from decoder: any Decoder) throws { self = try .decoded(from: decoder) }
    /// Encodes the flat JSON form.
    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
