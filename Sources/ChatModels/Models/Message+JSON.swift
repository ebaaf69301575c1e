import ChatJSON
import Foundation

/// The flat wire form, and `Codable` through it.
extension Message {
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
