import ChatModels
import Foundation
import GRDB

/// Users: upserts keep `created_at` and merge the client's fields.
enum UsersTable {
    static let serverKeys: Set<String> = [
        "id", "role", "created_at", "updated_at", "last_active", "online", "banned", "teams", "devices", "mutes",
        "channel_mutes", "unread_count", "total_unread_count", "unread_channels", "unread_threads", "deactivated_at", "deleted_at",
    ]

    static func fetch(_ db: Database, _ id: String) throws -> StoredUser? {
        try Row.fetchOne(db, cached: "SELECT * FROM users WHERE id = ?", arguments: [id]).map(decode)
    }

    static func fetch(_ db: Database, ids: some Collection<String>) throws -> [String: StoredUser] {
        guard !ids.isEmpty else { return [:] }
        let unique = Array(Set(ids))
        let placeholders = Array(repeating: "?", count: unique.count).joined(separator: ",")
        let rows = try Row.fetchAll(db, cached: "SELECT * FROM users WHERE id IN (\(placeholders))", arguments: StatementArguments(unique))
        return Dictionary(rows.map(decode).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Inserts or replaces the client fields of a user; server fields are kept.
    @discardableResult
    static func upsert(_ db: Database, _ fields: JSONObject, id: String, now: Date, replace: Bool = true) throws -> StoredUser {
        var data = JSONObject()
        var role: String?
        for (key, value) in fields {
            if key == "role" {
                role = value.stringValue
            } else if !serverKeys.contains(key) {
                data[key] = value
            }
        }
        if var existing = try fetch(db, id) {
            if replace {
                existing.data = data
            } else {
                for (key, value) in data { existing.data[key] = value }
            }
            if let role { existing.role = role }
            existing.updatedAt = now
            try db.execute(
                sql: "UPDATE users SET data = ?, role = ?, updated_at = ? WHERE id = ?",
                arguments: [StoreCoding.text(existing.data), existing.role, StoreCoding.text(now), id])
            return existing
        }
        let user = StoredUser(id: id, data: data, role: role ?? "user", createdAt: now, updatedAt: now, lastActive: nil)
        try db.execute(
            sql: "INSERT INTO users (id, data, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [id, StoreCoding.text(data), user.role, StoreCoding.text(now), StoreCoding.text(now)])
        return user
    }

    /// Makes sure a user exists (users named in a request are created on first use, as on the service).
    @discardableResult
    static func ensure(_ db: Database, _ id: String, now: Date) throws -> StoredUser {
        if let existing = try fetch(db, id) { return existing }
        return try upsert(db, [:], id: id, now: now)
    }

    static func touch(_ db: Database, _ id: String, now: Date) throws {
        try db.execute(sql: "UPDATE users SET last_active = ? WHERE id = ?", arguments: [StoreCoding.text(now), id])
    }

    static func decode(_ row: Row) -> StoredUser {
        StoredUser(
            id: row["id"], data: StoreCoding.object(row["data"]), role: row["role"],
            createdAt: StoreCoding.date(row["created_at"]) ?? Date(), updatedAt: StoreCoding.date(row["updated_at"]) ?? Date(),
            lastActive: StoreCoding.date(row["last_active"]), deactivatedAt: StoreCoding.date(row["deactivated_at"]),
            deletedAt: StoreCoding.date(row["deleted_at"]), isHardDeleted: row["hard_deleted"] ?? false)
    }

    /// Stores when `user` was deactivated and deleted, and whether for good; a hard deletion
    /// also forgets its custom fields (name, image, ...), keeping the id its messages name.
    static func storeLifecycle(_ db: Database, _ user: StoredUser, now: Date) throws {
        let data = user.isHardDeleted ? JSONObject() : user.data
        try db.execute(
            sql: "UPDATE users SET data = ?, deactivated_at = ?, deleted_at = ?, hard_deleted = ?, updated_at = ? WHERE id = ?",
            arguments: [
                StoreCoding.text(data), user.deactivatedAt.map(StoreCoding.text), user.deletedAt.map(StoreCoding.text), user.isHardDeleted,
                StoreCoding.text(now), user.id,
            ])
    }

    /// The first `limit` users that may act, by id (deactivated and deleted ones left out).
    static func active(_ db: Database, limit: Int) throws -> [StoredUser] {
        try Row.fetchAll(
            db, cached: "SELECT * FROM users WHERE deactivated_at IS NULL AND deleted_at IS NULL ORDER BY id LIMIT ?", arguments: [limit]
        ).map(decode)
    }

    /// The users that may not connect or act now, with why.
    static func disabled(_ db: Database) throws -> [String: String] {
        let rows = try Row.fetchAll(db, cached: "SELECT * FROM users WHERE deactivated_at IS NOT NULL OR deleted_at IS NOT NULL")
        return Dictionary(uniqueKeysWithValues: rows.map(decode).compactMap { user in user.disabledReason.map { (user.id, $0) } })
    }

    static let lifecycleMigration = """
        ALTER TABLE users ADD COLUMN deactivated_at TEXT;
        ALTER TABLE users ADD COLUMN deleted_at TEXT;
        ALTER TABLE users ADD COLUMN hard_deleted INTEGER NOT NULL DEFAULT 0;
        """
}
