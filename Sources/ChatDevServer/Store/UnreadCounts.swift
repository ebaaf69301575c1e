import ChatModels
import Foundation
import GRDB

/// A member's read state in one channel, with what it leaves unread.
struct MemberRead: Sendable {
    var userId: String
    /// Everything sent up to here is read.
    var lastRead: Date
    var lastReadMessageId: String?
    var unreadMessages: Int
}

/// One user's unread messages over all their channels.
struct UnreadTotals: Sendable {
    /// Each channel of theirs with its read state.
    var channels: [(cid: ChannelId, read: MemberRead)] = []

    var totalUnreadCount: Int { channels.reduce(0) { $0 + $1.read.unreadMessages } }
    var unreadChannels: Int { channels.filter { $0.read.unreadMessages > 0 }.count }
}

/// Unread messages counted as the service counts them: the channel's messages sent after a
/// member's last read, by others, neither deleted nor silent nor hidden by a truncation, and
/// thread replies only when shown in the channel. A member who never read starts from joining.
enum UnreadCounts {
    /// Counting a member's unread messages visits only those sent after their last read.
    static let migration = "CREATE INDEX messages_by_channel_time ON messages(cid, created_at);"

    /// The read state of each of `members` in `channel`.
    static func reads(_ db: Database, _ channel: StoredChannel, members: [StoredMember]) throws -> [MemberRead] {
        let stored = Dictionary(try MessagesTable.reads(db, channel.cid).map { ($0.userId, $0) }, uniquingKeysWith: { first, _ in first })
        return try members.map { member in
            let read = stored[member.userId]
            let lastRead = read?.lastRead ?? member.createdAt
            return MemberRead(
                userId: member.userId, lastRead: lastRead, lastReadMessageId: read?.lastReadMessageId,
                unreadMessages: try count(db, channel, for: member.userId, after: lastRead))
        }
    }

    /// The read state of `userId` in each channel they are a member of.
    static func totals(_ db: Database, of userId: String) throws -> UnreadTotals {
        var totals = UnreadTotals()
        for cid in try ChannelsTable.channelIds(ofMember: userId, db) {
            guard let channel = try ChannelsTable.fetch(db, cid), let member = try ChannelsTable.member(db, cid, userId) else { continue }
            if let read = try reads(db, channel, members: [member]).first { totals.channels.append((cid, read)) }
        }
        return totals
    }

    /// How many messages of `channel` that count are sent after `date` by someone else whom
    /// `userId` has not blocked.
    static func count(_ db: Database, _ channel: StoredChannel, for userId: String, after date: Date) throws -> Int {
        try Int.fetchOne(
            db,
            cached: """
                SELECT COUNT(*) FROM messages
                WHERE cid = ? AND user_id != ? AND created_at > ? AND seq > ? AND deleted_at IS NULL
                AND COALESCE(json_extract(data, '$.silent'), 0) = 0
                AND ((parent_id IS NULL AND type = 'regular') OR (parent_id IS NOT NULL AND json_extract(data, '$.show_in_channel') = 1))
                AND user_id NOT IN (SELECT blocked_user_id FROM blocks WHERE user_id = ?)
                """,
            arguments: [channel.cid.rawValue, userId, StoreCoding.text(date), channel.truncatedSeq ?? 0, userId]) ?? 0
    }
}
