import ChatModels
import Foundation
import GRDB

extension Renderer {
    /// The `ChannelStateResponse` of a channel: channel, messages, members, membership, read state.
    func channelState(
        _ db: Database, _ channel: StoredChannel, viewer: String?, messageLimit: Int, beforeId: String? = nil, memberLimit: Int = 100,
        watcherCount: Int
    ) throws -> JSONObject {
        let members = try ChannelsTable.members(db, channel.cid)
        let reads = try UnreadCounts.reads(db, channel, members: members)
        var userIds = Set(members.map(\.userId))
        if let createdBy = channel.createdBy { userIds.insert(createdBy) }
        let users = try UsersTable.fetch(db, ids: userIds)
        let membership = viewer.flatMap { viewer in members.first { $0.userId == viewer } }
        let messages = try self.messages(
            try MessagesTable.latest(db, channel.cid, limit: messageLimit, beforeId: beforeId, afterSeq: membership?.historyClearedSeq),
            viewer: viewer, in: db)
        var rendered = self.channel(channel, memberCount: members.count, createdBy: channel.createdBy.flatMap { users[$0] })
        rendered["hidden"] = .bool(membership?.isHidden ?? false)
        // A one-to-one channel with someone the viewer blocked says so, as on the service.
        if let membership, members.count == 2, let other = members.first(where: { $0.userId != membership.userId }),
            try BlocksTable.isBlocking(db, membership.userId, other.userId)
        {
            rendered["blocked"] = true
        }
        var state: JSONObject = [
            "channel": .object(rendered),
            "messages": .array(messages.map(RawJSON.object)),
            "pinned_messages": .array(
                try self.messages(try MessagesTable.pinned(db, channel.cid, at: now, limit: 10), viewer: viewer, in: db).map(RawJSON.object)),
            "members": .array(members.prefix(memberLimit).map { .object(member($0, users: users)) }),
            "read": .array(reads.map { .object(self.read($0, users: users)) }),
            "watcher_count": .number(JSONNumber(watcherCount)),
            "watchers": [],
            "threads": [],
            "hidden": .bool(membership?.isHidden ?? false),
        ]
        if let membership { state["membership"] = .object(member(membership, users: users)) }
        return state
    }

    /// A member's read state, as channel states and read notifications carry it.
    func read(_ read: MemberRead, users: [String: StoredUser]) -> JSONObject {
        [
            "user": .object(user(id: read.userId, from: users)), "last_read": .string(RFC3339.string(from: read.lastRead)),
            "unread_messages": .number(JSONNumber(read.unreadMessages)),
            "last_read_message_id": read.lastReadMessageId.map(RawJSON.string) ?? .null,
        ]
    }
}
