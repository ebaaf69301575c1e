import ChatModels
import Foundation

/// Builds response objects the way the hosted API shapes them (the fields Stream's Swift and JS
/// SDKs require are always present), with custom fields flat and file links freshly signed.
struct Renderer: Sendable {
    let signer: LinkSigner
    let baseURL: String
    let onlineUsers: Set<String>
    /// The server's time when the response is made, which decides whether a pin has expired.
    var now = Date()
    /// Reported as the channel type's `url_enrichment`.
    var enrichesURLs = true
    /// The commands each channel type offers, reported in its `config.commands`.
    var commands = CommandCatalog.Snapshot()

    static let channelConfig: JSONObject = [
        "name": "messaging", "typing_events": true, "read_events": true, "connect_events": true, "delivery_events": false,
        "search": true, "reactions": true, "replies": true, "quotes": true, "mutes": true, "uploads": true,
        "url_enrichment": false, "custom_events": true, "push_notifications": false, "reminders": true, "polls": true, "shared_locations": true,
        "message_retention": "infinite", "max_message_length": 5000, "automod": "disabled", "automod_behavior": "flag",
        "blocklist_behavior": "flag", "commands": [], "created_at": "2024-01-01T00:00:00.000000Z",
        "updated_at": "2024-01-01T00:00:00.000000Z",
    ]

    static let ownCapabilities: [RawJSON] = [
        "send-message", "upload-file", "send-reaction", "send-reply", "send-links", "create-attachment", "read-events",
        "typing-events", "update-own-message", "delete-own-message", "flag-message", "quote-message", "pin-message",
        "send-typing-events", "mute-channel",
    ]

    // MARK: Users

    func user(_ user: StoredUser) -> JSONObject {
        var object: JSONObject = [
            "id": .string(user.id), "role": .string(user.role), "created_at": .string(RFC3339.string(from: user.createdAt)),
            "updated_at": .string(RFC3339.string(from: user.updatedAt)), "banned": false,
            "online": .bool(onlineUsers.contains(user.id)), "teams": [],
        ]
        if let lastActive = user.lastActive { object["last_active"] = .string(RFC3339.string(from: lastActive)) }
        if let deactivated = user.deactivatedAt { object["deactivated_at"] = .string(RFC3339.string(from: deactivated)) }
        if let deleted = user.deletedAt { object["deleted_at"] = .string(RFC3339.string(from: deleted)) }
        for (key, value) in user.data where object[key] == nil { object[key] = value }
        return object
    }

    /// A user id that has no stored user (never expected, but never fatal).
    func user(id: String, from users: [String: StoredUser]) -> JSONObject {
        users[id].map(user) ?? ["id": .string(id), "role": "user", "banned": false, "online": false]
    }

    // MARK: Channels

    /// The configuration of channel type `type`, as clients read it.
    func config(ofChannelType type: String) -> JSONObject {
        var config = Renderer.channelConfig
        config["name"] = .string(type)
        config["url_enrichment"] = .bool(enrichesURLs)
        config["commands"] = .array(commands.commands(ofChannelType: type).map { .object($0.json) })
        return config
    }

    func channel(_ channel: StoredChannel, memberCount: Int, createdBy: StoredUser?) -> JSONObject {
        var object: JSONObject = [
            "id": .string(channel.cid.id), "type": .string(channel.cid.type.rawValue), "cid": .string(channel.cid.rawValue),
            "created_at": .string(RFC3339.string(from: channel.createdAt)),
            "updated_at": .string(RFC3339.string(from: channel.updatedAt)), "frozen": .bool(channel.frozen), "disabled": false,
            "hidden": false, "member_count": .number(JSONNumber(memberCount)), "config": .object(config(ofChannelType: channel.cid.type.rawValue)),
            "own_capabilities": .array(Renderer.ownCapabilities),
        ]
        if let createdBy { object["created_by"] = .object(user(createdBy)) }
        if let last = channel.lastMessageAt { object["last_message_at"] = .string(RFC3339.string(from: last)) }
        if let truncated = channel.truncatedAt { object["truncated_at"] = .string(RFC3339.string(from: truncated)) }
        if let deleted = channel.deletedAt { object["deleted_at"] = .string(RFC3339.string(from: deleted)) }
        for (key, value) in channel.data where object[key] == nil { object[key] = value }
        return object
    }

    func member(_ member: StoredMember, users: [String: StoredUser]) -> JSONObject {
        var object: JSONObject = [
            "user_id": .string(member.userId), "user": .object(user(id: member.userId, from: users)), "status": "member",
            "role": .string(member.channelRole == "channel_moderator" ? "moderator" : "member"),
            "channel_role": .string(member.channelRole), "created_at": .string(RFC3339.string(from: member.createdAt)),
            "updated_at": .string(RFC3339.string(from: member.updatedAt)), "banned": .bool(member.banned), "shadow_banned": false,
            "notifications_muted": false, "pinned_at": member.data["pinned_at"] ?? .null, "archived_at": member.data["archived_at"] ?? .null,
        ]
        for (key, value) in member.data where object[key] == nil { object[key] = value }
        return object
    }

    // MARK: Links

    static let linkFields = ["image_url", "asset_url", "thumb_url", "image", "url"]

    /// The attachment with every link to this server's file store signed afresh.
    func resigned(_ attachment: RawJSON) -> RawJSON {
        guard case .object(var object) = attachment else { return attachment }
        for field in Renderer.linkFields {
            guard let link = object[field]?.stringValue, let id = FileStore.fileId(inLink: link),
                let components = URLComponents(string: link)
            else { continue }
            let name = components.path.split(separator: "/").dropFirst(2).first.map(String.init) ?? "file"
            object[field] = .string(signer.sign(path: FileStore.urlPath(id: id, name: name), baseURL: baseURL))
        }
        return .object(object)
    }

    /// A message (as rendered JSON) with its attachment links signed afresh.
    func resignedMessage(_ message: RawJSON) -> RawJSON {
        guard case .object(var object) = message else { return message }
        if case .array(let attachments)? = object["attachments"] {
            object["attachments"] = .array(attachments.map(resigned))
        }
        if let quoted = object["quoted_message"], quoted.objectValue != nil {
            object["quoted_message"] = resignedMessage(quoted)
        }
        return .object(object)
    }

    /// An event (from the log or built now) with the links of its message signed afresh.
    func resignedEvent(_ event: JSONObject) -> JSONObject {
        var event = event
        if let message = event["message"], message.objectValue != nil { event["message"] = resignedMessage(message) }
        return event
    }
}
