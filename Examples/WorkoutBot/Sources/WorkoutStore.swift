import ChatModels
import Foundation
import GRDB

/// Every workout the bot has seen, per user, in SQLite. Recording the same message twice keeps
/// one row.
public final class WorkoutStore: Sendable {
    /// One stored workout.
    public struct Record: Sendable, Hashable {
        /// The message it came in.
        public var messageId: String
        /// Who did it.
        public var userId: String
        /// `walk`, `run`, ...
        public var type: String
        /// Meters.
        public var distanceMeters: Int
        /// Seconds.
        public var durationSeconds: Int
        /// Calories.
        public var energyCal: Int
        /// When it was posted.
        public var date: Date
        /// The channel it was posted in (nil for workouts stored before channels were recorded).
        public var cid: ChannelId?

        /// A workout record.
        public init(
            messageId: String, userId: String, type: String, distanceMeters: Int, durationSeconds: Int, energyCal: Int, date: Date,
            cid: ChannelId? = nil
        ) {
            self.cid = cid
            self.messageId = messageId
            self.userId = userId
            self.type = type
            self.distanceMeters = distanceMeters
            self.durationSeconds = durationSeconds
            self.energyCal = energyCal
            self.date = date
        }
    }

    let queue: DatabaseQueue

    /// Opens (and creates) the database at `url`.
    public init(url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS workouts (
                        message_id TEXT NOT NULL, position INTEGER NOT NULL, user_id TEXT NOT NULL, type TEXT NOT NULL,
                        distance_meters INTEGER NOT NULL, duration_seconds INTEGER NOT NULL, energy_cal INTEGER NOT NULL,
                        created_at REAL NOT NULL, PRIMARY KEY (message_id, position));
                    CREATE INDEX IF NOT EXISTS workouts_by_user ON workouts(user_id, created_at);
                    """)
            // Databases written before channels were recorded get the column, empty for their rows.
            if try !db.columns(in: "workouts").contains(where: { $0.name == "cid" }) {
                try db.execute(sql: "ALTER TABLE workouts ADD COLUMN cid TEXT")
            }
            try Self.createGoals(db)
            try Self.createTracks(db)
        }
    }

    /// Stores a workout (position: the attachment's index in its message).
    public func record(_ record: Record, position: Int) throws {
        try queue.write { db in try Self.insert(record, position: position, db) }
    }

    /// Inserts one workout; a workout already stored at that message and position is kept.
    private static func insert(_ record: Record, position: Int, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO workouts (message_id, position, user_id, type, distance_meters, duration_seconds, energy_cal, created_at, cid)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                record.messageId, position, record.userId, record.type, record.distanceMeters, record.durationSeconds, record.energyCal,
                record.date.timeIntervalSince1970, record.cid?.rawValue,
            ])
    }

    /// Replaces the workouts of message `messageId` with `records` (each with its attachment's
    /// position), in one transaction; true when that changed what is stored.
    @discardableResult
    public func replace(messageId: String, with records: [(record: Record, position: Int)]) throws -> Bool {
        try queue.write { db in
            let before = try Self.rows(of: messageId, db)
            try Self.delete(messageId: messageId, db)
            for (record, position) in records { try Self.insert(record, position: position, db) }
            return try Self.rows(of: messageId, db) != before
        }
    }

    /// Forgets the workouts of message `messageId`, and the run it tracked, if any; returns how
    /// many workouts there were.
    @discardableResult
    public func remove(messageId: String) throws -> Int {
        try queue.write { db in
            try db.execute(sql: "DELETE FROM tracks WHERE message_id = ?", arguments: [messageId])
            try Self.delete(messageId: messageId, db)
            return db.changesCount
        }
    }

    /// Forgets the workouts posted in `cid` up to `date`, only `userId`'s when given (a truncated
    /// channel, or a user's messages deleted at once); returns how many there were.
    @discardableResult
    public func remove(in cid: ChannelId, userId: String? = nil, postedUpTo date: Date) throws -> Int {
        try queue.write { db in
            var sql = "DELETE FROM workouts WHERE cid = ? AND created_at <= ?"
            var arguments: StatementArguments = [cid.rawValue, date.timeIntervalSince1970]
            if let userId {
                sql += " AND user_id = ?"
                arguments += [userId]
            }
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }

    /// Deletes the workouts of a message, inside the caller's transaction.
    private static func delete(messageId: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM workouts WHERE message_id = ?", arguments: [messageId])
    }

    /// The stored rows of a message, in position order, for comparing before and after.
    private static func rows(of messageId: String, _ db: Database) throws -> [Row] {
        try Row.fetchAll(db, sql: "SELECT * FROM workouts WHERE message_id = ? ORDER BY position", arguments: [messageId])
    }

    /// A user's workouts from `start` on (all of them by default), oldest first.
    public func workouts(of userId: String, since start: Date = .distantPast) throws -> [Record] {
        try queue.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM workouts WHERE user_id = ? AND created_at >= ? ORDER BY created_at, position",
                arguments: [userId, start.timeIntervalSince1970]
            ).map { row in
                Record(
                    messageId: row["message_id"], userId: row["user_id"], type: row["type"], distanceMeters: row["distance_meters"],
                    durationSeconds: row["duration_seconds"], energyCal: row["energy_cal"],
                    date: Date(timeIntervalSince1970: row["created_at"]), cid: (row["cid"] as String?).flatMap { try? ChannelId(cid: $0) })
            }
        }
    }
}
