import ChatModels
import Foundation
import GRDB

extension Renderer {
    /// The user as their own connection sees them (`me`, `own_user`): with their unread counts
    /// and the mutes in force now.
    func ownUser(_ db: Database, _ stored: StoredUser) throws -> JSONObject {
        var object = user(stored)
        let unread = try UnreadCounts.totals(db, of: stored.id)
        let total = RawJSON.number(JSONNumber(unread.totalUnreadCount))
        let mutes = try MutesTable.mutes(db, of: stored.id, kind: .user, at: now).map { try mute($0, db) }
        let channelMutes = try MutesTable.mutes(db, of: stored.id, kind: .channel, at: now).compactMap { try channelMute($0, db) }
        object["online"] = true
        for (key, value): (String, RawJSON) in [
            ("devices", []), ("mutes", .array(mutes.map(RawJSON.object))), ("channel_mutes", .array(channelMutes.map(RawJSON.object))),
            ("unread_count", total), ("total_unread_count", total), ("unread_channels", .number(JSONNumber(unread.unreadChannels))),
            ("unread_threads", 0), ("invisible", false), ("privacy_settings", [:]), ("push_preferences", [:]), ("blocked_user_ids", []),
        ] where object[key] == nil {
            object[key] = value
        }
        return object
    }

    /// A mute of a user: who muted whom, since when and until when.
    func mute(_ mute: StoredMute, _ db: Database) throws -> JSONObject {
        let users = try UsersTable.fetch(db, ids: [mute.userId, mute.target])
        var object = times(of: mute)
        object["user"] = .object(user(id: mute.userId, from: users))
        object["target"] = .object(user(id: mute.target, from: users))
        return object
    }

    /// A mute of a channel (nil once the channel is gone): who muted which, since when and until when.
    func channelMute(_ mute: StoredMute, _ db: Database) throws -> JSONObject? {
        guard let cid = try? ChannelId(cid: mute.target), let channel = try ChannelsTable.fetch(db, cid) else { return nil }
        let users = try UsersTable.fetch(db, ids: [mute.userId] + [channel.createdBy].compactMap { $0 })
        var object = times(of: mute)
        object["user"] = .object(user(id: mute.userId, from: users))
        object["channel"] = .object(
            self.channel(channel, memberCount: try ChannelsTable.memberCount(db, cid), createdBy: channel.createdBy.flatMap { users[$0] }))
        return object
    }

    private func times(of mute: StoredMute) -> JSONObject {
        [
            "created_at": .string(RFC3339.string(from: mute.createdAt)), "updated_at": .string(RFC3339.string(from: mute.updatedAt)),
            "expires": mute.expires.map { .string(RFC3339.string(from: $0)) } ?? .null,
        ]
    }
}
