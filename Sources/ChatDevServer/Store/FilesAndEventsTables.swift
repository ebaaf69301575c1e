import ChatModels
import Foundation
import GRDB

/// Uploaded files.
enum FilesTable {
    static func insert(_ db: Database, _ file: StoredFile) throws {
        try db.execute(
            sql: "INSERT INTO files (id, cid, kind, name, mime_type, size, uploaded_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                file.id, file.cid?.rawValue, file.kind, file.name, file.mimeType, file.size, file.uploadedBy,
                StoreCoding.text(file.createdAt),
            ])
    }

    static func fetch(_ db: Database, _ id: String) throws -> StoredFile? {
        try Row.fetchOne(db, cached: "SELECT * FROM files WHERE id = ?", arguments: [id]).map { row in
            StoredFile(
                id: row["id"], cid: (row["cid"] as String?).map(StoreCoding.channelId), kind: row["kind"], name: row["name"],
                mimeType: row["mime_type"], size: row["size"], uploadedBy: row["uploaded_by"],
                createdAt: StoreCoding.date(row["created_at"]) ?? Date(), deletedAt: StoreCoding.date(row["deleted_at"]))
        }
    }

    static func markDeleted(_ db: Database, _ id: String, at date: Date) throws {
        try db.execute(sql: "UPDATE files SET deleted_at = ? WHERE id = ?", arguments: [StoreCoding.text(date), id])
    }
}

/// The event log that `/sync` answers from.
enum EventsTable {
    static func append(_ db: Database, _ cid: ChannelId, _ event: JSONObject, at date: Date) throws {
        try db.execute(
            sql: "INSERT INTO events (cid, created_micros, data) VALUES (?, ?, ?)",
            arguments: [cid.rawValue, StoreCoding.micros(date), StoreCoding.text(event)])
    }

    /// Events of `cids` strictly after `date`, oldest first; at most `limit + 1` so callers can tell overflow.
    static func since(_ db: Database, cids: [ChannelId], after date: Date, limit: Int) throws -> [JSONObject] {
        guard !cids.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: cids.count).joined(separator: ",")
        var arguments = StatementArguments(cids.map(\.rawValue))
        arguments += [StoreCoding.micros(date), limit + 1]
        return try String.fetchAll(
            db,
            cached: "SELECT data FROM events WHERE cid IN (\(placeholders)) AND created_micros > ? ORDER BY created_micros, seq LIMIT ?",
            arguments: arguments
        ).map(StoreCoding.object)
    }
}

/// App settings, stored as JSON per key.
enum SettingsTable {
    static func fetch(_ db: Database, _ key: String) throws -> RawJSON? {
        try String.fetchOne(db, cached: "SELECT value FROM settings WHERE key = ?", arguments: [key]).flatMap { try? JSONParser().parse($0) }
    }

    static func store(_ db: Database, _ key: String, _ value: RawJSON) throws {
        try db.execute(
            sql: "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            arguments: [key, JSONWriter.string(value)])
    }
}
