import ChatModels
import Foundation
import GRDB

/// A message a user started and has not sent: one per user, channel and thread.
struct StoredDraft: Sendable {
    var cid: ChannelId
    var userId: String
    /// The thread's parent message, "" for the channel itself.
    var parentId: String
    var data: JSONObject
    var createdAt: Date
}

/// Drafts, keyed by channel, user and thread, so saving again replaces the draft.
enum DraftsTable {
    static let migration = """
        CREATE TABLE drafts (
            cid TEXT NOT NULL, user_id TEXT NOT NULL, parent_id TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
            PRIMARY KEY (cid, user_id, parent_id));
        CREATE INDEX drafts_by_user ON drafts(user_id, created_at);
        """

    static func store(_ db: Database, _ draft: StoredDraft) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO drafts (cid, user_id, parent_id, data, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [draft.cid.rawValue, draft.userId, draft.parentId, StoreCoding.text(draft.data), StoreCoding.text(draft.createdAt)])
    }

    static func fetch(_ db: Database, _ cid: ChannelId, _ userId: String, parentId: String) throws -> StoredDraft? {
        try Row.fetchOne(
            db, cached: "SELECT * FROM drafts WHERE cid = ? AND user_id = ? AND parent_id = ?", arguments: [cid.rawValue, userId, parentId]
        ).map(decode)
    }

    /// Removes the draft; false when there was none.
    static func remove(_ db: Database, _ cid: ChannelId, _ userId: String, parentId: String) throws -> Bool {
        try db.execute(
            sql: "DELETE FROM drafts WHERE cid = ? AND user_id = ? AND parent_id = ?", arguments: [cid.rawValue, userId, parentId])
        return db.changesCount > 0
    }

    /// The user's drafts, newest first.
    static func drafts(of userId: String, _ db: Database) throws -> [StoredDraft] {
        try Row.fetchAll(db, cached: "SELECT * FROM drafts WHERE user_id = ? ORDER BY created_at DESC, rowid DESC", arguments: [userId]).map(decode)
    }

    static func decode(_ row: Row) -> StoredDraft {
        StoredDraft(
            cid: StoreCoding.channelId(row["cid"]), userId: row["user_id"], parentId: row["parent_id"], data: StoreCoding.object(row["data"]),
            createdAt: StoreCoding.date(row["created_at"]) ?? Date())
    }
}
