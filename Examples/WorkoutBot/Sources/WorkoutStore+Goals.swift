import Foundation
import GRDB

extension WorkoutStore {
    /// A user's weekly distance goal.
    public struct Goal: Sendable, Hashable {
        /// Whose goal.
        public var userId: String
        /// Meters a week.
        public var weeklyMeters: Int
        /// The workouts that count (`run`); nil for any.
        public var type: String?

        /// A goal.
        public init(userId: String, weeklyMeters: Int, type: String?) {
            self.userId = userId
            self.weeklyMeters = weeklyMeters
            self.type = type
        }
    }

    /// Creates the goals table if the database has none yet.
    static func createGoals(_ db: Database) throws {
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS goals (user_id TEXT PRIMARY KEY, weekly_meters INTEGER NOT NULL, type TEXT, set_at REAL NOT NULL)")
    }

    /// Sets `goal`, replacing the user's previous one.
    public func setGoal(_ goal: Goal, at date: Date = Date()) throws {
        try queue.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO goals (user_id, weekly_meters, type, set_at) VALUES (?, ?, ?, ?)",
                arguments: [goal.userId, goal.weeklyMeters, goal.type, date.timeIntervalSince1970])
        }
    }

    /// The user's goal, or nil.
    public func goal(of userId: String) throws -> Goal? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM goals WHERE user_id = ?", arguments: [userId]).map { row in
                Goal(userId: row["user_id"], weeklyMeters: row["weekly_meters"], type: row["type"])
            }
        }
    }

    /// Forgets the user's goal; whether there was one.
    @discardableResult
    public func removeGoal(of userId: String) throws -> Bool {
        try queue.write { db in
            try db.execute(sql: "DELETE FROM goals WHERE user_id = ?", arguments: [userId])
            return db.changesCount > 0
        }
    }
}

extension WorkoutStore {
    /// One user's totals over a period.
    public struct Totals: Sendable, Hashable {
        /// Whose.
        public var userId: String
        /// Meters.
        public var distanceMeters: Int
        /// How many workouts.
        public var count: Int
    }

    /// Every user's totals of the workouts posted in `[start, end)`, the farthest first.
    public func totals(from start: Date, to end: Date) throws -> [Totals] {
        try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT user_id, sum(distance_meters) AS meters, count(*) AS workouts FROM workouts
                    WHERE created_at >= ? AND created_at < ? GROUP BY user_id ORDER BY meters DESC, user_id
                    """,
                arguments: [start.timeIntervalSince1970, end.timeIntervalSince1970]
            ).map { Totals(userId: $0["user_id"], distanceMeters: $0["meters"], count: $0["workouts"]) }
        }
    }
}
