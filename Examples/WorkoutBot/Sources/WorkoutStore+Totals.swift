import Foundation
import GRDB

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
