import ChatModels
import Foundation
import GRDB

/// A user's mute of another user or of a channel; none after `expires`.
struct StoredMute: Sendable {
    enum Kind: String, Sendable {
        case user, channel
    }

    var userId: String
    var kind: Kind
    /// The muted user's id, or the muted channel's cid.
    var target: String
    var createdAt: Date
    var updatedAt: Date
    var expires: Date?
}

/// Mutes, keyed by who mutes, what kind and what, so muting again renews the mute.
enum MutesTable {
    static let migration = """
        CREATE TABLE mutes (
            user_id TEXT NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
            expires_micros INTEGER, PRIMARY KEY (user_id, kind, target));
        """

    /// Stores `mute`; one that exists keeps its `created_at` and takes the new expiry.
    static func store(_ db: Database, _ mute: StoredMute) throws -> StoredMute {
        try db.execute(
            sql: """
                INSERT INTO mutes (user_id, kind, target, created_at, updated_at, expires_micros) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, kind, target) DO UPDATE SET updated_at = excluded.updated_at, expires_micros = excluded.expires_micros
                """,
            arguments: [
                mute.userId, mute.kind.rawValue, mute.target, StoreCoding.text(mute.createdAt), StoreCoding.text(mute.updatedAt),
                mute.expires.map(StoreCoding.micros),
            ])
        return try Row.fetchOne(
            db, cached: "SELECT * FROM mutes WHERE user_id = ? AND kind = ? AND target = ?", arguments: [mute.userId, mute.kind.rawValue, mute.target]
        ).map(decode) ?? mute
    }

    /// Ends the mute, if there is one.
    static func remove(_ db: Database, userId: String, kind: StoredMute.Kind, target: String) throws {
        try db.execute(sql: "DELETE FROM mutes WHERE user_id = ? AND kind = ? AND target = ?", arguments: [userId, kind.rawValue, target])
    }

    /// The user's mutes of `kind` in force at `now`, oldest first.
    static func mutes(_ db: Database, of userId: String, kind: StoredMute.Kind, at now: Date) throws -> [StoredMute] {
        try Row.fetchAll(
            db,
            cached: """
                SELECT * FROM mutes WHERE user_id = ? AND kind = ? AND (expires_micros IS NULL OR expires_micros > ?)
                ORDER BY created_at, target
                """,
            arguments: [userId, kind.rawValue, StoreCoding.micros(now)]
        ).map(decode)
    }

    static func decode(_ row: Row) -> StoredMute {
        let expires: Int64? = row["expires_micros"]
        return StoredMute(
            userId: row["user_id"], kind: StoredMute.Kind(rawValue: row["kind"]) ?? .user, target: row["target"],
            createdAt: StoreCoding.date(row["created_at"]) ?? Date(), updatedAt: StoreCoding.date(row["updated_at"]) ?? Date(),
            expires: expires.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) })
    }
}
