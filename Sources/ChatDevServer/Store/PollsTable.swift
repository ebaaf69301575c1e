import ChatModels
import Foundation
import GRDB

/// A poll: its settings, options and custom fields in `data` (as the API writes them, options
/// with their ids), whoever created it, and whether it is closed.
struct StoredPoll: Sendable {
    var id: String
    var data: JSONObject
    var createdBy: String
    var isClosed: Bool
    var createdAt: Date
    var updatedAt: Date

    /// The ids of its options, in order.
    var optionIds: [String] { (data["options"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } }
    /// Whether a user's new vote replaces the one it had (single choice).
    var enforcesUniqueVote: Bool { data["enforce_unique_vote"]?.boolValue ?? false }
    /// How many option votes a user may have, when limited.
    var maximumVotes: Int? { data["max_votes_allowed"]?.intValue }
    /// Whether users may answer in their own words.
    var allowsAnswers: Bool { data["allow_answers"]?.boolValue ?? false }
}

/// A vote on a poll option, or an answer in the voter's words (`answerText`), cast on the
/// message that carries the poll.
struct StoredPollVote: Sendable {
    var id: String
    var pollId: String
    var messageId: String
    var userId: String
    var optionId: String?
    var answerText: String?
    var createdAt: Date
    var updatedAt: Date

    var isAnswer: Bool { answerText != nil }
}

/// Polls and their votes.
enum PollsTable {
    static let migration = """
        CREATE TABLE polls (
            id TEXT PRIMARY KEY, data TEXT NOT NULL, created_by TEXT NOT NULL, is_closed INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE TABLE poll_votes (
            id TEXT PRIMARY KEY, poll_id TEXT NOT NULL, message_id TEXT NOT NULL, user_id TEXT NOT NULL, option_id TEXT,
            answer_text TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE INDEX poll_votes_by_poll ON poll_votes(poll_id, created_at);
        CREATE INDEX messages_by_poll ON messages(json_extract(data, '$.poll_id')) WHERE json_extract(data, '$.poll_id') IS NOT NULL;
        """

    static func insert(_ db: Database, _ poll: StoredPoll) throws {
        try db.execute(
            sql: "INSERT INTO polls (id, data, created_by, is_closed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                poll.id, StoreCoding.text(poll.data), poll.createdBy, poll.isClosed, StoreCoding.text(poll.createdAt),
                StoreCoding.text(poll.updatedAt),
            ])
    }

    static func update(_ db: Database, _ poll: StoredPoll) throws {
        try db.execute(
            sql: "UPDATE polls SET data = ?, is_closed = ?, updated_at = ? WHERE id = ?",
            arguments: [StoreCoding.text(poll.data), poll.isClosed, StoreCoding.text(poll.updatedAt), poll.id])
    }

    /// Removes the poll and its votes.
    static func delete(_ db: Database, _ id: String) throws {
        try db.execute(sql: "DELETE FROM poll_votes WHERE poll_id = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM polls WHERE id = ?", arguments: [id])
    }

    static func fetch(_ db: Database, _ id: String) throws -> StoredPoll? {
        try Row.fetchOne(db, cached: "SELECT * FROM polls WHERE id = ?", arguments: [id]).map { row in
            StoredPoll(
                id: row["id"], data: StoreCoding.object(row["data"]), createdBy: row["created_by"], isClosed: row["is_closed"],
                createdAt: StoreCoding.date(row["created_at"]) ?? Date(), updatedAt: StoreCoding.date(row["updated_at"]) ?? Date())
        }
    }

    /// The poll's votes, oldest first.
    static func votes(_ db: Database, pollId: String) throws -> [StoredPollVote] {
        try Row.fetchAll(db, cached: "SELECT * FROM poll_votes WHERE poll_id = ? ORDER BY created_at, id", arguments: [pollId]).map(decodeVote)
    }

    static func vote(_ db: Database, _ id: String) throws -> StoredPollVote? {
        try Row.fetchOne(db, cached: "SELECT * FROM poll_votes WHERE id = ?", arguments: [id]).map(decodeVote)
    }

    static func upsertVote(_ db: Database, _ vote: StoredPollVote) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO poll_votes (id, poll_id, message_id, user_id, option_id, answer_text, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                vote.id, vote.pollId, vote.messageId, vote.userId, vote.optionId, vote.answerText, StoreCoding.text(vote.createdAt),
                StoreCoding.text(vote.updatedAt),
            ])
    }

    static func deleteVote(_ db: Database, _ id: String) throws {
        try db.execute(sql: "DELETE FROM poll_votes WHERE id = ?", arguments: [id])
    }

    /// The messages that carry the poll (normally one), with their channels, through the
    /// index on the messages' `poll_id` (every vote asks).
    static func messages(carrying pollId: String, _ db: Database) throws -> [StoredMessage] {
        try Row.fetchAll(db, cached: "SELECT * FROM messages WHERE json_extract(data, '$.poll_id') = ?", arguments: [pollId]).map(MessagesTable.decode)
    }

    private static func decodeVote(_ row: Row) -> StoredPollVote {
        StoredPollVote(
            id: row["id"], pollId: row["poll_id"], messageId: row["message_id"], userId: row["user_id"], optionId: row["option_id"],
            answerText: row["answer_text"], createdAt: StoreCoding.date(row["created_at"]) ?? Date(),
            updatedAt: StoreCoding.date(row["updated_at"]) ?? Date())
    }
}
