import ChatModels
import Foundation
import GRDB

/// Channels and their members.
enum ChannelsTable {
    /// Truncation and soft deletion. A deleted channel keeps its row, so that its messages stay
    /// hidden (by `truncated_seq`) when a client creates a channel with the same id again.
    static let lifecycleMigration = """
        ALTER TABLE channels ADD COLUMN truncated_at TEXT;
        ALTER TABLE channels ADD COLUMN truncated_seq INTEGER;
        ALTER TABLE channels ADD COLUMN deleted_at TEXT;
        """

    /// The channel, unless it does not exist or was deleted.
    static func fetch(_ db: Database, _ cid: ChannelId) throws -> StoredChannel? {
        try fetchIncludingDeleted(db, cid).flatMap { $0.deletedAt == nil ? $0 : nil }
    }

    static func fetchIncludingDeleted(_ db: Database, _ cid: ChannelId) throws -> StoredChannel? {
        try Row.fetchOne(db, cached: "SELECT * FROM channels WHERE cid = ?", arguments: [cid.rawValue]).map(decode)
    }

    /// Stores a new channel, or one created again after it was deleted.
    static func insert(_ db: Database, _ channel: StoredChannel) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO channels (cid, type, id, data, created_by, created_at, updated_at, frozen, truncated_at, truncated_seq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                channel.cid.rawValue, channel.cid.type.rawValue, channel.cid.id, StoreCoding.text(channel.data), channel.createdBy,
                StoreCoding.text(channel.createdAt), StoreCoding.text(channel.updatedAt), channel.frozen,
                channel.truncatedAt.map(StoreCoding.text), channel.truncatedSeq,
            ])
    }

    static func update(_ db: Database, _ channel: StoredChannel) throws {
        try db.execute(
            sql: """
                UPDATE channels SET data = ?, updated_at = ?, last_message_at = ?, frozen = ?, truncated_at = ?, truncated_seq = ?,
                deleted_at = ? WHERE cid = ?
                """,
            arguments: [
                StoreCoding.text(channel.data), StoreCoding.text(channel.updatedAt), channel.lastMessageAt.map(StoreCoding.text),
                channel.frozen, channel.truncatedAt.map(StoreCoding.text), channel.truncatedSeq, channel.deletedAt.map(StoreCoding.text),
                channel.cid.rawValue,
            ])
    }

    static func touchLastMessage(_ db: Database, _ cid: ChannelId, at date: Date) throws {
        try db.execute(
            sql: "UPDATE channels SET last_message_at = ? WHERE cid = ?", arguments: [StoreCoding.text(date), cid.rawValue])
    }

    static func all(_ db: Database) throws -> [StoredChannel] {
        try Row.fetchAll(
            db, cached: "SELECT * FROM channels WHERE deleted_at IS NULL ORDER BY COALESCE(last_message_at, created_at) DESC"
        ).map(decode)
    }

    static func members(_ db: Database, _ cid: ChannelId) throws -> [StoredMember] {
        try Row.fetchAll(
            db, cached: "SELECT \(memberColumns) FROM members m WHERE cid = ? ORDER BY created_at, rowid",
            arguments: [StoreCoding.micros(Date()), cid.rawValue]
        ).map(decodeMember)
    }

    /// How many members `cid` has, counted by SQLite rather than by loading them.
    static func memberCount(_ db: Database, _ cid: ChannelId) throws -> Int {
        try Int.fetchOne(db, cached: "SELECT COUNT(*) FROM members WHERE cid = ?", arguments: [cid.rawValue]) ?? 0
    }

    static func member(_ db: Database, _ cid: ChannelId, _ userId: String) throws -> StoredMember? {
        try Row.fetchOne(
            db, cached: "SELECT \(memberColumns) FROM members m WHERE cid = ? AND user_id = ?",
            arguments: [StoreCoding.micros(Date()), cid.rawValue, userId]
        ).map(decodeMember)
    }

    /// Which of `cids` `userId` may read (existing, and it a member), in one query; for the
    /// server (nil), every one that exists or was deleted.
    static func readable(_ db: Database, _ cids: [ChannelId], by userId: String?) throws -> Set<ChannelId> {
        guard !cids.isEmpty else { return [] }
        var conditions = SQLConditions("1")
        conditions.add("c.cid", in: Set(cids.map(\.rawValue)))
        if let userId {
            conditions.add("c.deleted_at IS NULL AND c.cid IN (SELECT cid FROM members WHERE user_id = ?)", [userId])
        }
        return Set(try String.fetchAll(db, cached: "SELECT c.cid FROM channels c WHERE \(conditions.sql)", arguments: conditions.arguments).map(StoreCoding.channelId))
    }

    static func channelIds(ofMember userId: String, _ db: Database) throws -> [ChannelId] {
        try String.fetchAll(db, cached: "SELECT cid FROM members WHERE user_id = ?", arguments: [userId]).map(StoreCoding.channelId)
    }

    /// Adds members that are not members yet; returns the ones added.
    static func addMembers(_ db: Database, _ cid: ChannelId, _ entries: [(userId: String, role: String, data: JSONObject)], now: Date) throws
        -> [StoredMember]
    {
        var added: [StoredMember] = []
        for entry in entries where try member(db, cid, entry.userId) == nil {
            try UsersTable.ensure(db, entry.userId, now: now)
            let member = StoredMember(
                cid: cid, userId: entry.userId, channelRole: entry.role, data: entry.data, createdAt: now, updatedAt: now)
            try db.execute(
                sql: "INSERT INTO members (cid, user_id, channel_role, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [cid.rawValue, entry.userId, entry.role, StoreCoding.text(entry.data), StoreCoding.text(now), StoreCoding.text(now)])
            added.append(member)
        }
        return added
    }

    /// Writes a member's own fields and when it was last changed.
    static func updateMember(_ db: Database, _ member: StoredMember) throws {
        try db.execute(
            sql: "UPDATE members SET data = ?, updated_at = ? WHERE cid = ? AND user_id = ?",
            arguments: [StoreCoding.text(member.data), StoreCoding.text(member.updatedAt), member.cid.rawValue, member.userId])
    }

    /// Removes members; returns the ones that were members.
    static func removeMembers(_ db: Database, _ cid: ChannelId, _ userIds: [String]) throws -> [StoredMember] {
        var removed: [StoredMember] = []
        for userId in userIds {
            guard let existing = try member(db, cid, userId) else { continue }
            try db.execute(sql: "DELETE FROM members WHERE cid = ? AND user_id = ?", arguments: [cid.rawValue, userId])
            removed.append(existing)
        }
        return removed
    }

    /// Hides `cid` for `userId` or shows it again.
    static func setHidden(_ db: Database, _ cid: ChannelId, _ userId: String, _ isHidden: Bool) throws {
        try db.execute(sql: "UPDATE members SET hidden = ? WHERE cid = ? AND user_id = ?", arguments: [isHidden, cid.rawValue, userId])
    }

    /// Records that `userId` cleared its history of `cid` up to message `seq`.
    static func clearHistory(_ db: Database, _ cid: ChannelId, _ userId: String, upTo seq: Int64) throws {
        try db.execute(sql: "UPDATE members SET history_cleared_seq = ? WHERE cid = ? AND user_id = ?", arguments: [seq, cid.rawValue, userId])
    }

    /// Shows `cid` again to every member that hid it (a new message arrived).
    static func showToAll(_ db: Database, _ cid: ChannelId) throws {
        try db.execute(sql: "UPDATE members SET hidden = 0 WHERE cid = ? AND hidden = 1", arguments: [cid.rawValue])
    }

    /// The channels `userId` hid.
    static func hiddenChannelIds(of userId: String, _ db: Database) throws -> Set<ChannelId> {
        Set(try String.fetchAll(db, cached: "SELECT cid FROM members WHERE user_id = ? AND hidden = 1", arguments: [userId]).map(StoreCoding.channelId))
    }

    static let hidingMigration = """
        ALTER TABLE members ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE members ADD COLUMN history_cleared_seq INTEGER;
        """

    /// Takes `userId` out of every channel, with no event (its hard deletion).
    static func removeMemberships(of userId: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM members WHERE user_id = ?", arguments: [userId])
    }

    static func decode(_ row: Row) -> StoredChannel {
        StoredChannel(
            cid: StoreCoding.channelId(row["cid"]), data: StoreCoding.object(row["data"]), createdBy: row["created_by"],
            createdAt: StoreCoding.date(row["created_at"]) ?? Date(), updatedAt: StoreCoding.date(row["updated_at"]) ?? Date(),
            lastMessageAt: StoreCoding.date(row["last_message_at"]), frozen: row["frozen"],
            truncatedAt: StoreCoding.date(row["truncated_at"]), truncatedSeq: row["truncated_seq"], deletedAt: StoreCoding.date(row["deleted_at"]))
    }

    /// A member's columns and whether it is banned; the first argument is the time now in microseconds.
    static let memberColumns = "m.*, \(BansTable.activeCondition(user: "m.user_id", cid: "m.cid")) AS banned"

    static func decodeMember(_ row: Row) -> StoredMember {
        StoredMember(
            cid: StoreCoding.channelId(row["cid"]), userId: row["user_id"], channelRole: row["channel_role"],
            data: StoreCoding.object(row["data"]), createdAt: StoreCoding.date(row["created_at"]) ?? Date(),
            updatedAt: StoreCoding.date(row["updated_at"]) ?? Date(), banned: row["banned"] ?? false, isHidden: row["hidden"] ?? false,
            historyClearedSeq: row["history_cleared_seq"])
    }
}
