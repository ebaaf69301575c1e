import ChatClient
import ChatModels
import Foundation
import GRDB

extension WorkoutStore {
    /// A run followed through a live location: where it was last, how far it has come.
    public struct Track: Sendable, Hashable {
        /// The message sharing the location.
        public var messageId: String
        /// Who shares it.
        public var userId: String
        /// The workout type it is logged as (`run` unless the message says otherwise).
        public var type: String
        /// When sharing started.
        public var startedAt: Date
        /// The last position, in degrees.
        public var latitude: Double
        /// The last position, in degrees.
        public var longitude: Double
        /// When it was last there (moves not after it are ones already counted).
        public var lastAt: Date
        /// The distance so far along the positions shared.
        public var meters: Double
        /// Whether it was logged as a workout.
        public var isFinished: Bool
    }

    /// Creates the tracks table if the database has none yet.
    static func createTracks(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS tracks (
                    message_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, type TEXT NOT NULL, started_at REAL NOT NULL,
                    latitude REAL NOT NULL, longitude REAL NOT NULL, last_at REAL NOT NULL, meters REAL NOT NULL,
                    finished INTEGER NOT NULL DEFAULT 0)
                """)
    }

    /// Starts following a track; false when it is already followed (a redelivery).
    @discardableResult
    public func startTrack(_ track: Track) throws -> Bool {
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO tracks (message_id, user_id, type, started_at, latitude, longitude, last_at, meters, finished)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    track.messageId, track.userId, track.type, track.startedAt.timeIntervalSince1970, track.latitude, track.longitude,
                    track.lastAt.timeIntervalSince1970, track.meters, track.isFinished,
                ])
            return db.changesCount > 0
        }
    }

    /// Adds a position reached at `date` to an unfinished track: the distance from the last one
    /// is added, unless the position is not newer than the last (counted already). Returns the
    /// track as it stands, nil when there is no unfinished track of the message.
    @discardableResult
    public func move(_ messageId: String, toLatitude latitude: Double, longitude: Double, at date: Date) throws -> Track? {
        try queue.write { db in
            guard var track = try Self.track(messageId, db), !track.isFinished else { return nil }
            guard date > track.lastAt else { return track }
            track.meters += SharedLocation.meters(fromLatitude: track.latitude, longitude: track.longitude, toLatitude: latitude, longitude: longitude)
            (track.latitude, track.longitude, track.lastAt) = (latitude, longitude, date)
            try db.execute(
                sql: "UPDATE tracks SET latitude = ?, longitude = ?, last_at = ?, meters = ? WHERE message_id = ?",
                arguments: [latitude, longitude, date.timeIntervalSince1970, track.meters, messageId])
            return track
        }
    }

    /// Marks a track finished, returning it as it was; nil when there is none or it was finished
    /// before (so it is logged once).
    public func finishTrack(_ messageId: String) throws -> Track? {
        try queue.write { db in
            guard let track = try Self.track(messageId, db), !track.isFinished else { return nil }
            try db.execute(sql: "UPDATE tracks SET finished = 1 WHERE message_id = ?", arguments: [messageId])
            return track
        }
    }

    /// The track of a message, if it is followed.
    public func track(_ messageId: String) throws -> Track? {
        try queue.read { db in try Self.track(messageId, db) }
    }

    private static func track(_ messageId: String, _ db: Database) throws -> Track? {
        try Row.fetchOne(db, sql: "SELECT * FROM tracks WHERE message_id = ?", arguments: [messageId]).map { row in
            Track(
                messageId: row["message_id"], userId: row["user_id"], type: row["type"], startedAt: Date(timeIntervalSince1970: row["started_at"]),
                latitude: row["latitude"], longitude: row["longitude"], lastAt: Date(timeIntervalSince1970: row["last_at"]),
                meters: row["meters"], isFinished: row["finished"])
        }
    }
}
