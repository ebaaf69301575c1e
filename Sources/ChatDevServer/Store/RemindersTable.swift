import ChatModels
import Foundation
import GRDB

/// A user's reminder of a message: due at `remindAt`, or a bookmark ("save for later") without one.
struct StoredReminder: Sendable {
    var messageId: String
    var userId: String
    var cid: ChannelId
    var remindAt: Date?
    var createdAt: Date
    var updatedAt: Date
}

/// Reminders, one per user and message. `remind_at` is kept in microseconds so the alarm finds
/// the next one due through an index; `notified` marks those whose `notification.reminder_due`
/// went out, so a restart does not send it again.
enum RemindersTable {
    static let migration = """
        CREATE TABLE reminders (
            message_id TEXT NOT NULL, user_id TEXT NOT NULL, cid TEXT NOT NULL, remind_at INTEGER,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL, notified INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (message_id, user_id));
        CREATE INDEX reminders_by_user ON reminders(user_id);
        CREATE INDEX reminders_due ON reminders(notified, remind_at);
        """

    /// The most a user may have, as on the service.
    static let limitPerUser = 250

    /// Adds `reminder`; false when the user already has one for that message.
    static func insert(_ db: Database, _ reminder: StoredReminder) throws -> Bool {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO reminders (message_id, user_id, cid, remind_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                reminder.messageId, reminder.userId, reminder.cid.rawValue, reminder.remindAt.map(StoreCoding.micros),
                StoreCoding.text(reminder.createdAt), StoreCoding.text(reminder.updatedAt),
            ])
        return db.changesCount > 0
    }

    /// Sets a new time (nil: a bookmark) and makes it due again; false when there is no such reminder.
    static func reschedule(_ db: Database, messageId: String, userId: String, to remindAt: Date?, at now: Date) throws -> Bool {
        try db.execute(
            sql: "UPDATE reminders SET remind_at = ?, updated_at = ?, notified = 0 WHERE message_id = ? AND user_id = ?",
            arguments: [remindAt.map(StoreCoding.micros), StoreCoding.text(now), messageId, userId])
        return db.changesCount > 0
    }

    /// Removes the reminder; false when there was none.
    static func remove(_ db: Database, messageId: String, userId: String) throws -> Bool {
        try db.execute(sql: "DELETE FROM reminders WHERE message_id = ? AND user_id = ?", arguments: [messageId, userId])
        return db.changesCount > 0
    }

    static func fetch(_ db: Database, messageId: String, userId: String) throws -> StoredReminder? {
        try Row.fetchOne(db, cached: "SELECT * FROM reminders WHERE message_id = ? AND user_id = ?", arguments: [messageId, userId]).map(decode)
    }

    static func count(of userId: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, cached: "SELECT count(*) FROM reminders WHERE user_id = ?", arguments: [userId]) ?? 0
    }

    /// The user's reminders, in no particular order (the query sorts them).
    static func reminders(of userId: String, _ db: Database) throws -> [StoredReminder] {
        try Row.fetchAll(db, cached: "SELECT * FROM reminders WHERE user_id = ?", arguments: [userId]).map(decode)
    }

    /// The reminders due by `now` whose notification has not gone out, oldest first; each is
    /// marked notified in the same transaction.
    static func takeDue(_ db: Database, at now: Date) throws -> [StoredReminder] {
        let due = try Row.fetchAll(
            db, cached: "SELECT * FROM reminders WHERE notified = 0 AND remind_at IS NOT NULL AND remind_at <= ? ORDER BY remind_at",
            arguments: [StoreCoding.micros(now)]
        ).map(decode)
        try db.execute(
            sql: "UPDATE reminders SET notified = 1 WHERE notified = 0 AND remind_at IS NOT NULL AND remind_at <= ?",
            arguments: [StoreCoding.micros(now)])
        return due
    }

    /// When the next reminder not yet notified is due, if any.
    static func nextDue(_ db: Database) throws -> Date? {
        try Int64.fetchOne(db, cached: "SELECT min(remind_at) FROM reminders WHERE notified = 0 AND remind_at IS NOT NULL").map(date(micros:))
    }

    static func decode(_ row: Row) -> StoredReminder {
        StoredReminder(
            messageId: row["message_id"], userId: row["user_id"], cid: StoreCoding.channelId(row["cid"]),
            remindAt: (row["remind_at"] as Int64?).map(date(micros:)), createdAt: StoreCoding.date(row["created_at"]) ?? Date(),
            updatedAt: StoreCoding.date(row["updated_at"]) ?? Date())
    }

    private static func date(micros: Int64) -> Date { Date(timeIntervalSince1970: Double(micros) / 1_000_000) }
}
