import ChatModels
import Foundation
import GRDB

/// Users' blocks of other users: who blocked whom, and when.
enum BlocksTable {
    static let migration = """
        CREATE TABLE blocks (
            user_id TEXT NOT NULL, blocked_user_id TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (user_id, blocked_user_id));
        CREATE INDEX blocks_by_blocked ON blocks(blocked_user_id);
        """

    /// Records the block; one that exists keeps when it was made. Returns when it was made.
    static func store(_ db: Database, user: String, blocks blocked: String, at now: Date) throws -> Date {
        try db.execute(
            sql: "INSERT OR IGNORE INTO blocks (user_id, blocked_user_id, created_at) VALUES (?, ?, ?)",
            arguments: [user, blocked, StoreCoding.text(now)])
        let created = try String.fetchOne(
            db, cached: "SELECT created_at FROM blocks WHERE user_id = ? AND blocked_user_id = ?", arguments: [user, blocked])
        return StoreCoding.date(created) ?? now
    }

    /// Ends the block; false when there was none.
    static func remove(_ db: Database, user: String, blocked: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM blocks WHERE user_id = ? AND blocked_user_id = ?", arguments: [user, blocked])
        return db.changesCount > 0
    }

    /// Whom `userId` blocked, with when, oldest first.
    static func blocked(by userId: String, _ db: Database) throws -> [(userId: String, since: Date)] {
        try Row.fetchAll(db, cached: "SELECT blocked_user_id, created_at FROM blocks WHERE user_id = ? ORDER BY created_at, rowid", arguments: [userId])
            .map { ($0["blocked_user_id"], StoreCoding.date($0["created_at"]) ?? Date()) }
    }

    /// Whether `user` blocked `other`.
    static func isBlocking(_ db: Database, _ user: String, _ other: String) throws -> Bool {
        try Bool.fetchOne(
            db, cached: "SELECT EXISTS (SELECT 1 FROM blocks WHERE user_id = ? AND blocked_user_id = ?)", arguments: [user, other]) ?? false
    }

    /// Whether anyone blocked `userId` (through the index on blocked users).
    static func isBlocked(_ db: Database, _ userId: String) throws -> Bool {
        try Bool.fetchOne(db, cached: "SELECT EXISTS (SELECT 1 FROM blocks WHERE blocked_user_id = ?)", arguments: [userId]) ?? false
    }

    /// The other member of `cid` when it is a one-to-one channel that `userId` is in, else nil.
    static func otherMember(ofOneToOne cid: ChannelId, besides userId: String, _ db: Database) throws -> String? {
        let members = try String.fetchAll(db, cached: "SELECT user_id FROM members WHERE cid = ?", arguments: [cid.rawValue])
        guard members.count == 2, members.contains(userId) else { return nil }
        return members.first { $0 != userId }
    }

    /// The one-to-one channels of `user` and `other`.
    static func oneToOneChannels(of user: String, with other: String, _ db: Database) throws -> [ChannelId] {
        try String.fetchAll(
            db,
            cached: """
                SELECT a.cid FROM members a JOIN members b ON b.cid = a.cid AND b.user_id = ?
                WHERE a.user_id = ? AND (SELECT COUNT(*) FROM members c WHERE c.cid = a.cid) = 2
                """,
            arguments: [other, user]
        ).map(StoreCoding.channelId)
    }
}
