import ChatModels
import Foundation
import GRDB

/// A thread as stored: its parent message and what its replies add up to.
struct ThreadRow: Sendable {
    var parent: StoredMessage
    /// Replies not deleted.
    var replyCount: Int
    /// When its latest reply was sent.
    var lastReplyAt: Date
    /// Who wrote the parent or a reply, in the order they first did, with when.
    var participants: [(userId: String, since: Date, lastAt: Date)]
}

/// Threads, read from the messages: a parent with replies that are not deleted.
enum ThreadRows {
    /// The threads of `participant`'s channels that it takes part in, in no order. A
    /// truncation hides the threads whose parent it removed.
    static func parents(_ db: Database, participant: String) throws -> [ThreadRow] {
        let ids = try String.fetchAll(
            db,
            cached: """
                SELECT DISTINCT p.id FROM messages p JOIN messages r ON r.parent_id = p.id AND r.deleted_at IS NULL
                JOIN members m ON m.cid = p.cid AND m.user_id = ?
                WHERE p.deleted_at IS NULL AND p.seq > COALESCE((SELECT truncated_seq FROM channels WHERE cid = p.cid), 0)
                AND (p.user_id = ? OR r.user_id = ?)
                """,
            arguments: [participant, participant, participant])
        return try ids.compactMap { id in try MessagesTable.fetch(db, id).flatMap { try thread(db, parent: $0) } }
    }

    /// The thread `parent` starts, nil when it has no replies (or it is deleted).
    static func thread(_ db: Database, parent: StoredMessage) throws -> ThreadRow? {
        guard parent.deletedAt == nil else { return nil }
        let rows = try Row.fetchAll(
            db, cached: "SELECT user_id, created_at FROM messages WHERE parent_id = ? AND deleted_at IS NULL ORDER BY seq",
            arguments: [parent.id])
        guard !rows.isEmpty else { return nil }
        var participants: [(userId: String, since: Date, lastAt: Date)] = [(parent.userId, parent.createdAt, parent.createdAt)]
        var lastReplyAt = parent.createdAt
        for row in rows {
            let userId: String = row["user_id"]
            let at = StoreCoding.date(row["created_at"]) ?? parent.createdAt
            lastReplyAt = max(lastReplyAt, at)
            if let index = participants.firstIndex(where: { $0.userId == userId }) {
                participants[index].lastAt = at
            } else {
                participants.append((userId, at, at))
            }
        }
        return ThreadRow(parent: parent, replyCount: rows.count, lastReplyAt: lastReplyAt, participants: participants)
    }
}
