import ChatModels
import Foundation

/// A user as stored: server-managed fields beside the client's fields (`name`, `image`, custom).
struct StoredUser: Sendable {
    var id: String
    var data: JSONObject
    var role: String
    var createdAt: Date
    var updatedAt: Date
    var lastActive: Date?
    /// When it was deactivated; it can neither connect nor act until reactivated.
    var deactivatedAt: Date? = nil
    /// When it was deleted; it can neither connect nor act unless restored.
    var deletedAt: Date? = nil
    /// Whether the deletion was for good: such a user cannot be restored.
    var isHardDeleted = false

    /// Why the user may not connect or act now, nil when it may.
    var disabledReason: String? {
        if isHardDeleted { return "user \(id) was deleted for good" }
        if deletedAt != nil { return "user \(id) was deleted; restore it with POST /users/restore" }
        if deactivatedAt != nil { return "user \(id) is deactivated; reactivate it with POST /users/\(id)/reactivate" }
        return nil
    }
}

/// A channel as stored; `data` holds `name`, `image` and custom fields.
struct StoredChannel: Sendable {
    var cid: ChannelId
    var data: JSONObject
    var createdBy: String?
    var createdAt: Date
    var updatedAt: Date
    var lastMessageAt: Date?
    var frozen: Bool
    /// When the channel was last truncated: its messages up to `truncatedSeq` are hidden.
    var truncatedAt: Date?
    /// The last message sequence number the truncation hid (messages are numbered in send order).
    var truncatedSeq: Int64?
    /// When the channel was deleted (soft): it answers as missing until it is created again.
    var deletedAt: Date?
}

/// A channel member.
struct StoredMember: Sendable {
    var cid: ChannelId
    var userId: String
    var channelRole: String
    var data: JSONObject
    var createdAt: Date
    var updatedAt: Date
    /// Whether a ban (app-wide or of this channel) is in force for the member.
    var banned = false
    /// Whether the member hid the channel: its channel queries leave it out until it shows it
    /// again or a new message arrives.
    var isHidden = false
    /// The last message of the channel when the member hid it clearing its history: the member
    /// no longer sees it or those before it.
    var historyClearedSeq: Int64?
}

/// A message as stored: `data` is what the client sent (text, attachments, custom fields), with
/// the server's fields in columns.
struct StoredMessage: Sendable {
    var id: String
    var cid: ChannelId
    var userId: String
    var parentId: String?
    var type: String
    var data: JSONObject
    var createdAt: Date
    var updatedAt: Date
    var deletedAt: Date?
    /// The type a soft-deleted message had, which undeleting it restores.
    var typeBeforeDelete: String?
}

/// A reaction.
struct StoredReaction: Sendable {
    var messageId: String
    var userId: String
    var type: String
    var score: Int
    var data: JSONObject
    var createdAt: Date
    var updatedAt: Date
}

/// An uploaded file; its bytes live at `FileStore.path(for:)`.
struct StoredFile: Sendable {
    var id: String
    var cid: ChannelId?
    var kind: String
    var name: String
    var mimeType: String
    var size: Int64
    var uploadedBy: String?
    var createdAt: Date
    var deletedAt: Date?
}

/// Where a member has read up to.
struct StoredRead: Sendable {
    var userId: String
    var lastRead: Date
    var lastReadMessageId: String?
}

/// One logged event, for `/sync`.
struct StoredEvent: Sendable {
    var cid: ChannelId
    var createdAt: Date
    var json: JSONObject
}
