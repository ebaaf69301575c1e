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
