import ChatModels
import Foundation

/// A member's read state in a channel, as a channel's state lists it.
public struct ChannelRead: Sendable, Hashable {
    /// The member.
    public var userId: String
    /// Everything sent up to here is read.
    public var lastRead: Date?
    /// The messages of others sent since, not deleted or silent.
    public var unreadMessages: Int
    /// The last message read, if any.
    public var lastReadMessageId: String?

    init(json: JSONObject) {
        userId = json["user"]?["id"]?.stringValue ?? json["user_id"]?.stringValue ?? ""
        lastRead = json["last_read"]?.stringValue.flatMap { RFC3339.date(from: $0) }
        unreadMessages = json["unread_messages"]?.intValue ?? 0
        lastReadMessageId = json["last_read_message_id"]?.stringValue
    }
}

/// A user's unread messages over all their channels (`GET /unread`).
public struct UnreadCounts: Sendable, Hashable {
    /// One channel's unread messages.
    public struct Channel: Sendable, Hashable {
        /// The channel.
        public var cid: ChannelId
        /// Its unread messages.
        public var unreadCount: Int
        /// Everything sent up to here is read.
        public var lastRead: Date?
    }

    /// The unread messages of all channels together.
    public var totalUnreadCount: Int
    /// Each channel of the user's.
    public var channels: [Channel]

    /// The unread messages of `cid` (0 for a channel not listed).
    public func unread(in cid: ChannelId) -> Int { channels.first { $0.cid == cid }?.unreadCount ?? 0 }

    init(json: JSONObject) throws {
        totalUnreadCount = json["total_unread_count"]?.intValue ?? 0
        channels = try (json["channels"]?.arrayValue ?? []).map { entry in
            Channel(
                cid: try ChannelId(cid: entry["channel_id"]?.stringValue ?? ""), unreadCount: entry["unread_count"]?.intValue ?? 0,
                lastRead: entry["last_read"]?.stringValue.flatMap { RFC3339.date(from: $0) })
        }
    }
}
