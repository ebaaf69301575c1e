import ChatModels
import Foundation
import GRDB

/// A version of a message an edit replaced: what it said, when and by whom it was made.
struct MessageVersion: Sendable {
    var messageId: String
    var data: JSONObject
    var madeAt: Date
    var madeBy: String
}

/// Message history: every version an edit replaced, oldest first per message.
enum MessageHistoryTable {
    static let migration = """
        CREATE TABLE message_history (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT NOT NULL, data TEXT NOT NULL, made_at TEXT NOT NULL,
            made_by TEXT NOT NULL, replaced_by TEXT NOT NULL);
        CREATE INDEX message_history_by_message ON message_history(message_id, seq);
        """

    /// Keeps `message` as it is before an edit by `editor`. The version was made by its author
    /// or by whoever made the edit before.
    static func keep(_ db: Database, _ message: StoredMessage, replacedBy editor: String) throws {
        let madeBy = try String.fetchOne(
            db, cached: "SELECT replaced_by FROM message_history WHERE message_id = ? ORDER BY seq DESC LIMIT 1", arguments: [message.id])
        try db.execute(
            sql: "INSERT INTO message_history (message_id, data, made_at, made_by, replaced_by) VALUES (?, ?, ?, ?, ?)",
            arguments: [message.id, StoreCoding.text(message.data), StoreCoding.text(message.updatedAt), madeBy ?? message.userId, editor])
    }

    /// The versions of `messageId` an edit replaced, oldest first.
    static func versions(_ db: Database, of messageId: String) throws -> [MessageVersion] {
        try Row.fetchAll(db, cached: "SELECT * FROM message_history WHERE message_id = ? ORDER BY seq", arguments: [messageId]).map { row in
            MessageVersion(
                messageId: row["message_id"], data: StoreCoding.object(row["data"]), madeAt: StoreCoding.date(row["made_at"]) ?? Date(),
                madeBy: row["made_by"])
        }
    }
}
