import ChatModels
import Foundation
import GRDB

/// The keys of a stored message's `data` that are rendered by the server rather than echoed.
let renderedMessageKeys: Set<String> = [
    "id", "text", "html", "type", "user", "user_id", "cid", "attachments", "latest_reactions", "own_reactions",
    "reaction_counts", "reaction_scores", "reaction_groups", "reply_count", "deleted_reply_count", "created_at", "updated_at",
    "deleted_at", "mentioned_users", "parent_id", "quoted_message", "member", "shadowed", "pinned_at", "pinned_by",
    "pin_expires", "restricted_visibility", "channel", "poll", "shared_location",
]

extension Renderer {
    /// Renders messages with their authors, mentions, reactions and reply counts, reading what
    /// they need in `db`. `viewer` decides `own_reactions`.
    func messages(_ stored: [StoredMessage], viewer: String?, in db: Database) throws -> [JSONObject] {
        guard !stored.isEmpty else { return [] }
        let quotedIds = stored.compactMap { $0.data["quoted_message_id"]?.stringValue }
        let quoted = try quotedIds.compactMap { try MessagesTable.fetch(db, $0) }
        let all = stored + quoted
        let reactions = try MessagesTable.reactions(db, messageIds: all.map(\.id))
        var userIds = Set(all.map(\.userId))
        for message in all {
            for mention in message.data["mentioned_users"]?.arrayValue ?? [] {
                if let id = mention.stringValue ?? mention["id"]?.stringValue { userIds.insert(id) }
            }
        }
        for group in reactions.values { userIds.formUnion(group.map(\.userId)) }
        for message in all { if let pin = MessagePins.pin(of: message.data, at: now) { userIds.insert(pin.by) } }
        let users = try UsersTable.fetch(db, ids: userIds)
        let quotedById = Dictionary(quoted.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let locations = try SharedLocationsTable.fetch(db, messageIds: stored.map(\.id))
        return try stored.map { message in
            var object = self.message(
                message, users: users, reactions: reactions[message.id] ?? [], replyCount: try MessagesTable.replyCount(db, parentId: message.id),
                viewer: viewer)
            if let pollId = message.data["poll_id"]?.stringValue, let poll = try self.poll(pollId, viewer: viewer, in: db) {
                object["poll"] = .object(poll)
            }
            if let location = locations[message.id] { object["shared_location"] = .object(sharedLocation(location)) }
            if let quotedId = message.data["quoted_message_id"]?.stringValue, let quotedMessage = quotedById[quotedId] {
                object["quoted_message"] = .object(
                    self.message(quotedMessage, users: users, reactions: reactions[quotedId] ?? [], replyCount: 0, viewer: viewer))
            }
            return object
        }
    }

    func message(_ message: StoredMessage, users: [String: StoredUser], reactions: [StoredReaction], replyCount: Int, viewer: String?)
        -> JSONObject
    {
        let data = message.data
        let text = data["text"]?.stringValue ?? ""
        var object: JSONObject = [
            "id": .string(message.id), "text": .string(text), "html": .string(Renderer.html(text)), "type": .string(message.type),
            "user": .object(user(id: message.userId, from: users)),
            "attachments": .array((data["attachments"]?.arrayValue ?? []).map(resigned)),
        ]
        let sortedReactions = reactions.sorted { $0.createdAt > $1.createdAt }
        object["latest_reactions"] = .array(sortedReactions.prefix(10).map { .object(reaction($0, users: users)) })
        object["own_reactions"] = .array(sortedReactions.filter { $0.userId == viewer }.map { .object(reaction($0, users: users)) })
        var counts: [String: Int] = [:]
        var scores: [String: Int] = [:]
        for reaction in reactions {
            counts[reaction.type, default: 0] += 1
            scores[reaction.type, default: 0] += reaction.score
        }
        object["reaction_counts"] = .object(JSONObject(counts.mapValues { .number(JSONNumber($0)) }))
        object["reaction_scores"] = .object(JSONObject(scores.mapValues { .number(JSONNumber($0)) }))
        object["reply_count"] = .number(JSONNumber(replyCount))
        object["deleted_reply_count"] = 0
        object["cid"] = .string(message.cid.rawValue)
        object["created_at"] = .string(RFC3339.string(from: message.createdAt))
        object["updated_at"] = .string(RFC3339.string(from: message.updatedAt))
        if let deletedAt = message.deletedAt { object["deleted_at"] = .string(RFC3339.string(from: deletedAt)) }
        object["shadowed"] = false
        object["mentioned_users"] = .array(
            (data["mentioned_users"]?.arrayValue ?? []).compactMap { mention in
                (mention.stringValue ?? mention["id"]?.stringValue).map { .object(user(id: $0, from: users)) }
            })
        object["mentioned_channel"] = data["mentioned_channel"] ?? false
        object["mentioned_here"] = data["mentioned_here"] ?? false
        object["silent"] = data["silent"] ?? false
        let pin = MessagePins.pin(of: data, at: now)
        object["pinned"] = .bool(pin != nil)
        object["pinned_at"] = pin.map { .string(RFC3339.string(from: $0.at)) } ?? .null
        object["pinned_by"] = pin.map { .object(user(id: $0.by, from: users)) } ?? .null
        object["pin_expires"] = pin?.expires.map { .string(RFC3339.string(from: $0)) } ?? .null
        object["restricted_visibility"] = []
        if let parentId = message.parentId { object["parent_id"] = .string(parentId) }
        for (key, value) in data where object[key] == nil && !renderedMessageKeys.contains(key) {
            object[key] = value
        }
        return object
    }

    func reaction(_ reaction: StoredReaction, users: [String: StoredUser]) -> JSONObject {
        var object: JSONObject = [
            "message_id": .string(reaction.messageId), "user_id": .string(reaction.userId),
            "user": .object(user(id: reaction.userId, from: users)), "type": .string(reaction.type),
            "score": .number(JSONNumber(reaction.score)), "created_at": .string(RFC3339.string(from: reaction.createdAt)),
            "updated_at": .string(RFC3339.string(from: reaction.updatedAt)),
        ]
        for (key, value) in reaction.data where object[key] == nil { object[key] = value }
        return object
    }

    /// The server's HTML rendering of a text: escaped, in a paragraph, line breaks kept.
    static func html(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&#34;"
            case "\n": escaped += "<br/>"
            default: escaped.append(character)
            }
        }
        return "<p>\(escaped)</p>\n"
    }
}
