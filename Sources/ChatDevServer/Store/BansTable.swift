import ChatModels
import Foundation
import GRDB

/// A ban: app-wide when `cid` is nil, else in one channel; none after `expires`.
struct StoredBan: Sendable {
    var targetUserId: String
    var cid: ChannelId?
    var bannedBy: String
    var reason: String?
    var createdAt: Date
    var expires: Date?
}

/// Bans, keyed by user and channel ('' for app-wide), so a second ban replaces the first.
enum BansTable {
    static let migration = """
        CREATE TABLE bans (
            target_user_id TEXT NOT NULL, cid TEXT NOT NULL, banned_by TEXT NOT NULL, reason TEXT,
            created_at TEXT NOT NULL, expires_micros INTEGER, PRIMARY KEY (target_user_id, cid));
        """

    /// The SQL condition "the ban is in force", for the bans table under `alias`; its one
    /// argument is the current time in microseconds.
    static func inForce(_ alias: String = "bans") -> String {
        "(\(alias).expires_micros IS NULL OR \(alias).expires_micros > ?)"
    }

    /// The SQL condition "`user` is banned in `cid` now", for the columns named; its one argument is
    /// the current time in microseconds.
    static func activeCondition(user: String, cid: String) -> String {
        "EXISTS (SELECT 1 FROM bans b WHERE b.target_user_id = \(user) AND b.cid IN (\(cid), '') AND \(inForce("b")))"
    }

    static func store(_ db: Database, _ ban: StoredBan) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO bans (target_user_id, cid, banned_by, reason, created_at, expires_micros) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [
                ban.targetUserId, ban.cid?.rawValue ?? "", ban.bannedBy, ban.reason, StoreCoding.text(ban.createdAt),
                ban.expires.map(StoreCoding.micros),
            ])
    }

    /// Removes the ban; whether there was one.
    static func remove(_ db: Database, user: String, cid: ChannelId?) throws -> Bool {
        try db.execute(sql: "DELETE FROM bans WHERE target_user_id = ? AND cid = ?", arguments: [user, cid?.rawValue ?? ""])
        return db.changesCount > 0
    }

    /// The ban that keeps `user` from acting in `cid` at `now`: app-wide first, then the channel's.
    static func active(_ db: Database, user: String, cid: ChannelId, at now: Date) throws -> StoredBan? {
        try Row.fetchOne(
            db,
            cached: """
                SELECT * FROM bans WHERE target_user_id = ? AND cid IN (?, '') AND \(inForce()) ORDER BY cid LIMIT 1
                """,
            arguments: [user, cid.rawValue, StoreCoding.micros(now)]
        ).map(decode)
    }

    /// Bans in force at `now`, newest first, optionally only those of some channels (`''` in
    /// `cids` for app-wide ones) or some users.
    static func list(_ db: Database, cids: Set<String>?, users: Set<String>?, at now: Date, limit: Int, offset: Int) throws -> [StoredBan] {
        var conditions = SQLConditions(inForce(), [StoreCoding.micros(now)])
        conditions.add("cid", in: cids)
        conditions.add("target_user_id", in: users)
        let sql = "SELECT * FROM bans WHERE \(conditions.sql) ORDER BY created_at DESC LIMIT \(limit) OFFSET \(offset)"
        return try Row.fetchAll(db, cached: sql, arguments: conditions.arguments).map(decode)
    }

    static func decode(_ row: Row) -> StoredBan {
        let cid: String = row["cid"]
        let expires: Int64? = row["expires_micros"]
        return StoredBan(
            targetUserId: row["target_user_id"], cid: cid.isEmpty ? nil : StoreCoding.channelId(cid), bannedBy: row["banned_by"],
            reason: row["reason"], createdAt: StoreCoding.date(row["created_at"]) ?? Date(),
            expires: expires.map { Date(timeIntervalSince1970: Double($0) / 1_000_000) })
    }
}
