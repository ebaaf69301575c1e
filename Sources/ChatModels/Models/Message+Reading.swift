@_spi(JSONEngine) import ChatJSON
import ChatJSON
import Foundation

/// Reading a message straight from an indexed document.
extension Message {
    /// Reads a message from JSON bytes.
    public init(jsonData: Data) throws(JSONError) { self = try Self.read(jsonData) }

    /// Attachments that are not JSON objects are skipped, as Stream's SDK does; a wrong type in
    /// any modelled field is an error naming that field.
    package init(reader: JSONReader, node: Int) throws(JSONError) {
        var fields = Fields(id: "")
        try Message.read(into: &fields, reader, node)
        storage = IndirectBox(fields)
    }

    /// Fills `fields` with the message at `node`, in place: returning a `Fields` made the
    /// optimizer copy the whole struct on the way out (a retain and a release per field, 0.4 us
    /// per event together with Event's and User's). Static, so `self` is never partly
    /// initialized when a field throws.
    private static func read(into fields: inout Fields, _ reader: JSONReader, _ node: Int) throws(JSONError) {
        let object = try reader.readObject(node)
        var hasId = false
        var attachmentsNode: Int?
        var hasUnmodelled = false
        for (keyNode, value) in reader.members(object) {
            guard let key = Message.keys.match(reader, keyNode) else {
                hasUnmodelled = true
                continue
            }
            do throws(JSONError) {
                switch key {
                case .id:
                    fields.id = try reader.readString(value)
                    hasId = true
                case .cid: fields.cid = reader.isNull(value) ? nil : try reader.readChannelId(value)
                case .text: fields.texts.text = try reader.readOptionalText(value)
                case .html: fields.texts.html = try reader.readOptionalText(value)
                case .type:
                    if reader.kind(value) == .string, let known = Message.knownTypes.match(reader, value) {
                        fields.type = MessageType(rawValue: known.rawValue)
                    } else {
                        fields.type = MessageType(rawValue: try reader.readOptionalString(value) ?? "regular")
                    }
                case .user: try reader.readOptionalModel(into: &fields.user, value)
                case .attachments:
                    if !reader.isNull(value) {
                        guard reader.kind(value) == .array else { throw reader.mismatch(value, expected: "an array") }
                        attachmentsNode = value
                    }
                case .parentId: fields.parentId = try reader.readOptionalString(value)
                case .showInChannel: fields.showInChannel = try reader.readOptionalBool(value)
                case .quotedMessageId: fields.quotedMessageId = try reader.readOptionalString(value)
                case .quotedMessage: fields.quotedBox = try reader.readOptionalModel(Message.self, value).map(IndirectBox.init)
                case .mentionedUsers: fields.mentionedUsers = try Message.readMentions(reader, value)
                case .latestReactions: fields.latestReactions = try reader.readModels(Reaction.self, value)
                case .ownReactions: fields.ownReactions = try reader.readModels(Reaction.self, value)
                case .reactionCounts: fields.reactionCounts = try reader.readIntMap(value)
                case .reactionScores: fields.reactionScores = try reader.readIntMap(value)
                case .replyCount: fields.replyCount = try reader.readOptionalInt(value)
                case .createdAt: fields.createdAt = try reader.readOptionalDate(value)
                case .updatedAt: fields.updatedAt = try reader.readOptionalDate(value)
                case .deletedAt: fields.deletedAt = try reader.readOptionalDate(value)
                case .pinned: fields.isPinned = try reader.readOptionalBool(value)
                case .silent: fields.isSilent = try reader.readOptionalBool(value)
                case .command: fields.command = try reader.readOptionalString(value)
                case .args: fields.args = try reader.readOptionalString(value)
                }
            } catch {
                throw error.prefixed(key.rawValue)
            }
        }
        guard hasId else { throw .missing("id") }
        if let attachmentsNode {
            fields.attachments.reserveCapacity(reader.childCount(attachmentsNode))
            var position = 0
            for element in reader.elements(attachmentsNode) {
                defer { position += 1 }
                guard reader.kind(element) == .object else { continue }
                fields.attachments.append(
                    AnyChatMessageAttachment(
                        id: AttachmentId(cid: fields.cid, messageId: fields.id, index: position),
                        type: AttachmentClassifier.classify(reader, element),
                        payload: reader.slice(element)))
            }
        }
        if hasUnmodelled {
            fields.server = reader.lazyMembers(object, filter: Message.serverFilter)
            fields.custom = reader.lazyMembers(object, filter: Message.customFilter)
        }
        if fields.texts.text.isUnread || fields.texts.html.isUnread { fields.texts.source = reader.source }
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
}
