import ChatLocking
import ChatModels
import Foundation
import GRDB

/// The dev server's durable state: one SQLite database in WAL mode (GRDB), written before any
/// request is answered, so a restart on the same data folder keeps everything acknowledged.
final class DevStore: Sendable {
    let pool: DatabasePool

    /// Opens (and migrates) `chat.sqlite` in `directory`.
    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: directory.appendingPathComponent("chat.sqlite").path, configuration: configuration)
        try DevStore.migrator.migrate(pool)
    }

    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }

    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws -> T {
        try await pool.write(body)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE users (
                        id TEXT PRIMARY KEY, data TEXT NOT NULL, role TEXT NOT NULL,
                        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, last_active TEXT);
                    CREATE TABLE channels (
                        cid TEXT PRIMARY KEY, type TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, created_by TEXT,
                        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, last_message_at TEXT, frozen INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE members (
                        cid TEXT NOT NULL, user_id TEXT NOT NULL, channel_role TEXT NOT NULL, data TEXT NOT NULL,
                        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (cid, user_id));
                    CREATE INDEX members_by_user ON members(user_id);
                    CREATE TABLE messages (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, cid TEXT NOT NULL,
                        user_id TEXT NOT NULL, parent_id TEXT, type TEXT NOT NULL, data TEXT NOT NULL,
                        created_at TEXT NOT NULL, updated_at TEXT NOT NULL, deleted_at TEXT);
                    CREATE INDEX messages_by_channel ON messages(cid, seq);
                    CREATE INDEX messages_by_parent ON messages(parent_id, seq);
                    CREATE TABLE reactions (
                        message_id TEXT NOT NULL, user_id TEXT NOT NULL, type TEXT NOT NULL, score INTEGER NOT NULL,
                        data TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
                        PRIMARY KEY (message_id, user_id, type));
                    CREATE TABLE reads (
                        cid TEXT NOT NULL, user_id TEXT NOT NULL, last_read TEXT NOT NULL, last_read_message_id TEXT,
                        PRIMARY KEY (cid, user_id));
                    CREATE TABLE files (
                        id TEXT PRIMARY KEY, cid TEXT, kind TEXT NOT NULL, name TEXT NOT NULL, mime_type TEXT NOT NULL,
                        size INTEGER NOT NULL, uploaded_by TEXT, created_at TEXT NOT NULL, deleted_at TEXT);
                    CREATE TABLE events (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, cid TEXT NOT NULL, created_micros INTEGER NOT NULL,
                        data TEXT NOT NULL);
                    CREATE INDEX events_by_channel ON events(cid, created_micros);
                    CREATE TABLE flags (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT, target_message_id TEXT, target_user_id TEXT,
                        user_id TEXT, reason TEXT, data TEXT NOT NULL, created_at TEXT NOT NULL);
                    """)
        }
        migrator.registerMigration("v2: bans") { db in try db.execute(sql: BansTable.migration) }
        migrator.registerMigration("v3: truncated and deleted channels") { db in try db.execute(sql: ChannelsTable.lifecycleMigration) }
        migrator.registerMigration("v4: undeleted messages") { db in try db.execute(sql: MessagesTable.undeleteMigration) }
        migrator.registerMigration("v5: mutes") { db in try db.execute(sql: MutesTable.migration) }
        migrator.registerMigration("v6: unread counts") { db in try db.execute(sql: UnreadCounts.migration) }
        migrator.registerMigration("v7: deactivated and deleted users") { db in try db.execute(sql: UsersTable.lifecycleMigration) }
        migrator.registerMigration("v8: hidden channels") { db in try db.execute(sql: ChannelsTable.hidingMigration) }
        migrator.registerMigration("v9: blocks") { db in try db.execute(sql: BlocksTable.migration) }
        migrator.registerMigration("v10: message history") { db in try db.execute(sql: MessageHistoryTable.migration) }
        migrator.registerMigration("v11: drafts") { db in try db.execute(sql: DraftsTable.migration) }
        migrator.registerMigration("v12: reminders") { db in try db.execute(sql: RemindersTable.migration) }
        migrator.registerMigration("v13: polls") { db in try db.execute(sql: PollsTable.migration) }
        migrator.registerMigration("v14: shared locations") { db in try db.execute(sql: SharedLocationsTable.migration) }
        return migrator
    }
}

/// Conversions between stored text and values.
enum StoreCoding {
    static func text(_ date: Date) -> String { RFC3339.string(from: date) }

    static func date(_ text: String?) -> Date? { text.flatMap(RFC3339.date(from:)) }

    static func text(_ object: JSONObject) -> String { JSONWriter.string(.object(object)) }

    static func object(_ text: String) -> JSONObject {
        (try? JSONParser().parse(text).objectValue) ?? JSONObject()
    }

    static func micros(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1_000_000).rounded()) }

    static func channelId(_ text: String) -> ChannelId {
        (try? ChannelId(cid: text)) ?? ChannelId(type: .messaging, id: "invalid")
    }
}

/// A clock that never goes backwards and never repeats a microsecond, so event order and
/// `last_sync_at` comparisons are exact (clients drop updates that are not strictly newer).
final class MonotonicClock: Sendable {
    private let last = Locked<Int64>(0)

    func now() -> Date {
        let micros = last.withLock { last -> Int64 in
            let current = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
            last = max(current, last + 1)
            return last
        }
        return Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }
}

