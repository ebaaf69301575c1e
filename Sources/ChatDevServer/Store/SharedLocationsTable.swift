import ChatModels
import Foundation
import GRDB

/// A location shared with a message: static (no `endAt`) or live until `endAt`, moved by its
/// sharer while live.
struct StoredSharedLocation: Sendable {
    var messageId: String
    var cid: ChannelId
    var userId: String
    var latitude: Double
    var longitude: Double
    var deviceId: String
    var endAt: Date?
    var createdAt: Date
    var updatedAt: Date
}

/// Shared locations, one per message. `end_at` is kept in microseconds so a user's live ones
/// are found through an index.
enum SharedLocationsTable {
    static let migration = """
        CREATE TABLE shared_locations (
            message_id TEXT PRIMARY KEY, cid TEXT NOT NULL, user_id TEXT NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL,
            device_id TEXT NOT NULL, end_at INTEGER, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
        CREATE INDEX shared_locations_by_user ON shared_locations(user_id, end_at);
        """

    static func insert(_ db: Database, _ location: StoredSharedLocation) throws {
        try db.execute(
            sql: """
                INSERT INTO shared_locations (message_id, cid, user_id, latitude, longitude, device_id, end_at, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                location.messageId, location.cid.rawValue, location.userId, location.latitude, location.longitude, location.deviceId,
                location.endAt.map(StoreCoding.micros), StoreCoding.text(location.createdAt), StoreCoding.text(location.updatedAt),
            ])
    }

    /// Writes a moved (or stopped) location back.
    static func update(_ db: Database, _ location: StoredSharedLocation) throws {
        try db.execute(
            sql: "UPDATE shared_locations SET latitude = ?, longitude = ?, end_at = ?, updated_at = ? WHERE message_id = ?",
            arguments: [
                location.latitude, location.longitude, location.endAt.map(StoreCoding.micros), StoreCoding.text(location.updatedAt),
                location.messageId,
            ])
    }

    static func fetch(_ db: Database, messageId: String) throws -> StoredSharedLocation? {
        try Row.fetchOne(db, cached: "SELECT * FROM shared_locations WHERE message_id = ?", arguments: [messageId]).map(decode)
    }

    /// The locations of those of `messageIds` that have one, by message id.
    static func fetch(_ db: Database, messageIds: [String]) throws -> [String: StoredSharedLocation] {
        guard !messageIds.isEmpty else { return [:] }
        let marks = Array(repeating: "?", count: messageIds.count).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db, cached: "SELECT * FROM shared_locations WHERE message_id IN (\(marks))", arguments: StatementArguments(messageIds))
        return Dictionary(rows.map(decode).map { ($0.messageId, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The user's locations still live at `now` whose messages are neither deleted nor gone,
    /// the earliest shared first.
    static func live(of userId: String, at now: Date, _ db: Database) throws -> [StoredSharedLocation] {
        try Row.fetchAll(
            db,
            cached: """
                SELECT shared_locations.* FROM shared_locations JOIN messages ON messages.id = shared_locations.message_id
                WHERE shared_locations.user_id = ? AND shared_locations.end_at > ? AND messages.deleted_at IS NULL
                ORDER BY shared_locations.created_at
                """,
            arguments: [userId, StoreCoding.micros(now)]
        ).map(decode)
    }

    static func delete(_ db: Database, messageId: String) throws {
        try db.execute(sql: "DELETE FROM shared_locations WHERE message_id = ?", arguments: [messageId])
    }

    static func decode(_ row: Row) -> StoredSharedLocation {
        StoredSharedLocation(
            messageId: row["message_id"], cid: StoreCoding.channelId(row["cid"]), userId: row["user_id"], latitude: row["latitude"],
            longitude: row["longitude"], deviceId: row["device_id"],
            endAt: (row["end_at"] as Int64?).map { Date(timeIntervalSince1970: Double($0) / 1_000_000) },
            createdAt: StoreCoding.date(row["created_at"]) ?? Date(), updatedAt: StoreCoding.date(row["updated_at"]) ?? Date())
    }
}
