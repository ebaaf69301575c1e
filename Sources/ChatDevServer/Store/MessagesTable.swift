import ChatModels
import Foundation
import GRDB

/// Messages, reactions and read state.
enum MessagesTable {
    static func fetch(_ db: Database, _ id: String) throws -> StoredMessage? {
        try Row.fetchOne(db, cached: "SELECT * FROM messages WHERE id = ?", arguments: [id]).map(decode)
    }

    static func insert(_ db: Database, _ message: StoredMessage) throws {
        try db.execute(
            sql: """
                INSERT INTO messages (id, cid, user_id, parent_id, type, data, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                message.id, message.cid.rawValue, message.userId, message.parentId, message.type, StoreCoding.text(message.data),
                StoreCoding.text(message.createdAt), StoreCoding.text(message.updatedAt),
            ])
    }

    static func update(_ db: Database, _ message: StoredMessage) throws {
        try db.execute(
            sql: "UPDATE messages SET type = ?, data = ?, updated_at = ?, deleted_at = ?, type_before_delete = ? WHERE id = ?",
            arguments: [
                message.type, StoreCoding.text(message.data), StoreCoding.text(message.updatedAt),
                message.deletedAt.map(StoreCoding.text), message.typeBeforeDelete, message.id,
            ])
    }

    static func delete(_ db: Database, _ id: String) throws {
        try db.execute(sql: "DELETE FROM messages WHERE id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM reactions WHERE message_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM reminders WHERE message_id = ?", arguments: [id])
        try SharedLocationsTable.delete(db, messageId: id)
    }

    /// The latest `limit` channel messages (thread replies only when shown in the channel), oldest first.
    /// `afterSeq` leaves out the messages up to it (a history the viewer cleared).
    static func latest(_ db: Database, _ cid: ChannelId, limit: Int, beforeId: String? = nil, afterSeq: Int64? = nil) throws -> [StoredMessage] {
        var sql = """
            SELECT * FROM messages WHERE cid = ? AND (parent_id IS NULL OR json_extract(data, '$.show_in_channel') = 1)
            AND seq > \(visibleSeq) AND seq > ?
            """
        var arguments: StatementArguments = [cid.rawValue, cid.rawValue, afterSeq ?? 0]
        if let beforeId, let seq = try Int64.fetchOne(db, cached: "SELECT seq FROM messages WHERE id = ?", arguments: [beforeId]) {
            sql += " AND seq < ?"
            arguments += [seq]
        }
        sql += " ORDER BY seq DESC LIMIT ?"
        arguments += [limit]
        return try Row.fetchAll(db, cached: sql, arguments: arguments).map(decode).reversed()
    }

    /// Limits on when the listed pins were made.
    struct PinBounds: Sendable {
        var before: Date?
        var beforeOrEqual: Date?
        var after: Date?
        var afterOrEqual: Date?
    }

    /// The channel's visible messages pinned at `now`, the most recently pinned first (or the
    /// earliest, without `newestFirst`), pinned within `bounds`.
    static func pinned(
        _ db: Database, _ cid: ChannelId, at now: Date, limit: Int, newestFirst: Bool = true, within bounds: PinBounds = PinBounds()
    ) throws -> [StoredMessage] {
        // RFC 3339 timestamps as the store writes them (UTC, microseconds) sort as text.
        var sql = """
            SELECT * FROM messages WHERE cid = ? AND seq > \(visibleSeq) AND deleted_at IS NULL
            AND json_extract(data, '$.pinned') = 1 AND json_extract(data, '$.pinned_at') IS NOT NULL
            AND (json_extract(data, '$.pin_expires') IS NULL OR json_extract(data, '$.pin_expires') > ?)
            """
        var arguments: StatementArguments = [cid.rawValue, cid.rawValue, StoreCoding.text(now)]
        for (bound, comparison) in [(bounds.before, "<"), (bounds.beforeOrEqual, "<="), (bounds.after, ">"), (bounds.afterOrEqual, ">=")] {
            guard let bound else { continue }
            sql += " AND json_extract(data, '$.pinned_at') \(comparison) ?"
            arguments += [StoreCoding.text(bound)]
        }
        let order = newestFirst ? "DESC" : "ASC"
        sql += " ORDER BY json_extract(data, '$.pinned_at') \(order), seq \(order) LIMIT ?"
        arguments += [limit]
        return try Row.fetchAll(db, cached: sql, arguments: arguments).map(decode)
    }

    static func replies(_ db: Database, parentId: String, limit: Int) throws -> [StoredMessage] {
        try Row.fetchAll(
            db, cached: "SELECT * FROM messages WHERE parent_id = ? ORDER BY seq LIMIT ?", arguments: [parentId, limit]
        ).map(decode)
    }

    /// The latest `limit` replies of a thread not deleted, oldest first.
    static func latestReplies(_ db: Database, parentId: String, limit: Int) throws -> [StoredMessage] {
        try Row.fetchAll(
            db, cached: "SELECT * FROM messages WHERE parent_id = ? AND deleted_at IS NULL ORDER BY seq DESC LIMIT ?", arguments: [parentId, limit]
        ).map(decode).reversed()
    }

    static func replyCount(_ db: Database, parentId: String) throws -> Int {
        try Int.fetchOne(
            db, cached: "SELECT COUNT(*) FROM messages WHERE parent_id = ? AND deleted_at IS NULL", arguments: [parentId]) ?? 0
    }

    static func count(_ db: Database, _ cid: ChannelId) throws -> Int {
        try Int.fetchOne(
            db, cached: "SELECT COUNT(*) FROM messages WHERE cid = ? AND seq > \(visibleSeq)", arguments: [cid.rawValue, cid.rawValue]) ?? 0
    }

    /// The SQL for the sequence number a channel's visible messages come after (the last one
    /// its truncation hid, or 0); its one argument is the channel's cid.
    static let visibleSeq = "COALESCE((SELECT truncated_seq FROM channels WHERE cid = ?), 0)"

    /// The sequence number of the channel's last message created at or before `date` (its last
    /// message when nil), if any.
    static func lastSeq(_ db: Database, _ cid: ChannelId, upTo date: Date?) throws -> Int64? {
        guard let date else { return try Int64.fetchOne(db, cached: "SELECT MAX(seq) FROM messages WHERE cid = ?", arguments: [cid.rawValue]) }
        let rows = try Row.fetchAll(db, cached: "SELECT seq, created_at FROM messages WHERE cid = ? ORDER BY seq", arguments: [cid.rawValue])
        var last: Int64?
        for row in rows {
            if let created = StoreCoding.date(row["created_at"]), created > date { break }
            last = row["seq"]
        }
        return last
    }

    /// Hides the channel's messages up to `seq` for good (`hard`: removed with their reactions)
    /// or as deleted messages that `GET /messages/{id}` still answers.
    static func truncate(_ db: Database, _ cid: ChannelId, upTo seq: Int64, hard: Bool, at now: Date) throws {
        if hard {
            for table in ["reactions", "reminders"] {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE message_id IN (SELECT id FROM messages WHERE cid = ? AND seq <= ?)",
                    arguments: [cid.rawValue, seq])
            }
            try db.execute(sql: "DELETE FROM messages WHERE cid = ? AND seq <= ?", arguments: [cid.rawValue, seq])
        } else {
            try db.execute(
                sql: "UPDATE messages SET type_before_delete = type, type = 'deleted', deleted_at = ?, updated_at = ? WHERE cid = ? AND seq <= ? AND deleted_at IS NULL",
                arguments: [StoreCoding.text(now), StoreCoding.text(now), cid.rawValue, seq])
        }
    }

    /// The channels `userId` has messages in (deleted ones included), by id.
    static func channelIds(withMessagesOf userId: String, _ db: Database) throws -> [ChannelId] {
        try String.fetchAll(db, cached: "SELECT DISTINCT cid FROM messages WHERE user_id = ? ORDER BY cid", arguments: [userId])
            .compactMap { try? ChannelId(cid: $0) }
    }

    /// Deletes every message `userId` posted in `cid` (thread replies included): `hard` removes
    /// them with their reactions, otherwise they stay as deleted messages an undelete can bring
    /// back. Returns how many there were (messages already soft-deleted count only when `hard`).
    static func deleteMessages(_ db: Database, of userId: String, in cid: ChannelId, hard: Bool, at now: Date) throws -> Int {
        if hard {
            for table in ["reactions", "reminders"] {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE message_id IN (SELECT id FROM messages WHERE cid = ? AND user_id = ?)",
                    arguments: [cid.rawValue, userId])
            }
            try db.execute(sql: "DELETE FROM messages WHERE cid = ? AND user_id = ?", arguments: [cid.rawValue, userId])
            return db.changesCount
        }
        try db.execute(
            sql: """
                UPDATE messages SET type_before_delete = type, type = 'deleted', deleted_at = ?, updated_at = ?
                WHERE cid = ? AND user_id = ? AND deleted_at IS NULL
                """,
            arguments: [StoreCoding.text(now), StoreCoding.text(now), cid.rawValue, userId])
        return db.changesCount
    }

    /// The messages of `userId` soft-deleted at `date` (all at once, by a deactivation), oldest first.
    static func deletedMessages(_ db: Database, of userId: String, at date: Date) throws -> [StoredMessage] {
        try Row.fetchAll(
            db, cached: "SELECT * FROM messages WHERE user_id = ? AND deleted_at = ? ORDER BY seq",
            arguments: [userId, StoreCoding.text(date)]
        ).map(decode)
    }

    /// A message's reactions, newest first.
    static func reactions(_ db: Database, messageId: String, limit: Int, offset: Int) throws -> [StoredReaction] {
        try Row.fetchAll(
            db, cached: "SELECT * FROM reactions WHERE message_id = ? ORDER BY created_at DESC, user_id LIMIT ? OFFSET ?",
            arguments: [messageId, limit, offset]
        ).map(decodeReaction)
    }

    static func decode(_ row: Row) -> StoredMessage {
        StoredMessage(
            id: row["id"], cid: StoreCoding.channelId(row["cid"]), userId: row["user_id"], parentId: row["parent_id"],
            type: row["type"], data: StoreCoding.object(row["data"]), createdAt: StoreCoding.date(row["created_at"]) ?? Date(),
            updatedAt: StoreCoding.date(row["updated_at"]) ?? Date(), deletedAt: StoreCoding.date(row["deleted_at"]),
            typeBeforeDelete: row["type_before_delete"])
    }

    /// Added for undeleting messages: the type a soft delete replaced.
    static let undeleteMigration = "ALTER TABLE messages ADD COLUMN type_before_delete TEXT;"

    /// The message's position in its channel (messages are numbered in send order).
    static func sequence(_ db: Database, _ id: String) throws -> Int64? {
        try Int64.fetchOne(db, cached: "SELECT seq FROM messages WHERE id = ?", arguments: [id])
    }

    // MARK: Reactions

    static func reactions(_ db: Database, messageIds: [String]) throws -> [String: [StoredReaction]] {
        guard !messageIds.isEmpty else { return [:] }
        let placeholders = Array(repeating: "?", count: messageIds.count).joined(separator: ",")
        let rows = try Row.fetchAll(
            db, cached: "SELECT * FROM reactions WHERE message_id IN (\(placeholders)) ORDER BY created_at DESC",
            arguments: StatementArguments(messageIds))
        return Dictionary(grouping: rows.map(decodeReaction), by: \.messageId)
    }

    static func reaction(_ db: Database, _ messageId: String, _ userId: String, _ type: String) throws -> StoredReaction? {
        try Row.fetchOne(
            db, cached: "SELECT * FROM reactions WHERE message_id = ? AND user_id = ? AND type = ?", arguments: [messageId, userId, type]
        ).map(decodeReaction)
    }

    static func upsertReaction(_ db: Database, _ reaction: StoredReaction) throws {
        try db.execute(
            sql: """
                INSERT INTO reactions (message_id, user_id, type, score, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (message_id, user_id, type) DO UPDATE SET score = excluded.score, data = excluded.data,
                updated_at = excluded.updated_at
                """,
            arguments: [
                reaction.messageId, reaction.userId, reaction.type, reaction.score, StoreCoding.text(reaction.data),
                StoreCoding.text(reaction.createdAt), StoreCoding.text(reaction.updatedAt),
            ])
    }

    static func deleteReactions(_ db: Database, _ messageId: String, _ userId: String, exceptType: String? = nil, onlyType: String? = nil)
        throws
    {
        if let onlyType {
            try db.execute(
                sql: "DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND type = ?", arguments: [messageId, userId, onlyType])
        } else if let exceptType {
            try db.execute(
                sql: "DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND type != ?", arguments: [messageId, userId, exceptType])
        }
    }

    static func decodeReaction(_ row: Row) -> StoredReaction {
        StoredReaction(
            messageId: row["message_id"], userId: row["user_id"], type: row["type"], score: row["score"],
            data: StoreCoding.object(row["data"]), createdAt: StoreCoding.date(row["created_at"]) ?? Date(),
            updatedAt: StoreCoding.date(row["updated_at"]) ?? Date())
    }

    // MARK: Reads

    static func markRead(_ db: Database, _ cid: ChannelId, _ userId: String, messageId: String?, at date: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO reads (cid, user_id, last_read, last_read_message_id) VALUES (?, ?, ?, ?)
                ON CONFLICT (cid, user_id) DO UPDATE SET last_read = excluded.last_read, last_read_message_id = excluded.last_read_message_id
                """,
            arguments: [cid.rawValue, userId, StoreCoding.text(date), messageId])
    }

    /// Drops the channel's read state (its members left).
    static func forgetReads(_ db: Database, _ cid: ChannelId) throws {
        try db.execute(sql: "DELETE FROM reads WHERE cid = ?", arguments: [cid.rawValue])
    }

    static func reads(_ db: Database, _ cid: ChannelId) throws -> [StoredRead] {
        try Row.fetchAll(db, cached: "SELECT * FROM reads WHERE cid = ?", arguments: [cid.rawValue]).map { row in
            StoredRead(
                userId: row["user_id"], lastRead: StoreCoding.date(row["last_read"]) ?? Date(),
                lastReadMessageId: row["last_read_message_id"])
        }
    }
}
