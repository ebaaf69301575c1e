import ChatLocking
import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Channel exports: `POST /export_channels` writes every message of up to 25 channels (with
/// the channel and its members) to a JSON file and answers a `task_id`; `GET
/// /export_channels/{id}` (and `GET /tasks/{id}`) answers the task with a link to the file,
/// signed afresh on every read as the service does.
struct ExportRoutes {
    let state: DevServerState

    /// The most channels one export takes, as on the service.
    static let maximumChannels = 25

    /// One channel to export, as asked.
    struct ChannelRequest {
        var cid: ChannelId
        var since: Date?
        var until: Date?
    }

    /// The options of one export.
    struct Options {
        var includeTruncatedMessages = false
        var includeSoftDeletedChannels = false
        var clearDeletedMessageText = false
    }

    func register(on router: Router<DevRequestContext>) {
        router.post("/export_channels") { request, _ in try await exportChannels(request) }
        router.get("/export_channels/:taskId") { request, context in
            try await state.requireServer(request, "GetExportChannelsStatus", "exports can only be read")
            return JSONReply(try state.task(context.parameters.get("taskId") ?? "", baseURL: state.baseURL(for: request), operation: "GetExportChannelsStatus"))
        }
    }

    /// `POST /export_channels` (server tokens only) with `channels` (each `type`, `id`, and
    /// optionally `messages_since` and `messages_until`), `include_truncated_messages`,
    /// `include_soft_deleted_channels` and `clear_deleted_message_text`. The dev server writes
    /// the file before answering, so the task is already completed. The file holds one line
    /// per channel: `{"channel": …, "messages": […], "members": […]}`, messages oldest first,
    /// thread replies included, as the channel's API renders them.
    func exportChannels(_ request: Request) async throws -> JSONReply {
        let operation = "ExportChannels"
        try await state.requireServer(request, operation, "channels can only be exported")
        let body = try await state.jsonBody(request, operation: operation)
        let channels = try Self.channelRequests(body["channels"], operation: operation)
        if let version = body["version"], !version.isNull, version.stringValue != "v1" {
            throw APIError.input(operation, "version \(JSONWriter.string(version)) is not supported by the dev server; leave it out for v1 (one JSON object per channel)")
        }
        var options = Options()
        let flags: [(String, WritableKeyPath<Options, Bool>)] = [
            ("include_truncated_messages", \Options.includeTruncatedMessages), ("include_soft_deleted_channels", \.includeSoftDeletedChannels),
            ("clear_deleted_message_text", \.clearDeletedMessageText),
        ]
        for (key, path) in flags {
            guard let value = body[key], !value.isNull else { continue }
            guard let flag = value.boolValue else { throw APIError.input(operation, "\(key) must be true or false, not \(value.kindDescription)") }
            options[keyPath: path] = flag
        }
        let renderer = await state.renderer(for: request)
        let chosen = options
        let lines = try await state.store.read { db in
            try channels.map { channel in JSONWriter.data(.object(try Self.export(channel, chosen, renderer, db, operation: operation))) }
        }
        let created = state.clock.now()
        let taskId = UUID().uuidString.lowercased()
        let fileId = UUID().uuidString.lowercased()
        let contents = lines.reduce(into: Data()) { file, line in
            file.append(line)
            file.append(0x0A)
        }
        try contents.write(to: state.files.path(for: fileId), options: .atomic)
        let name = "export-channels-\(taskId).json"
        try await state.store.write { db in
            try FilesTable.insert(
                db,
                StoredFile(
                    id: fileId, cid: nil, kind: "export", name: name, mimeType: "application/json", size: Int64(contents.count),
                    uploadedBy: nil, createdAt: created))
        }
        let task: JSONObject = [
            "task_id": .string(taskId), "status": "completed", "created_at": .string(RFC3339.string(from: created)),
            "updated_at": .string(RFC3339.string(from: state.clock.now())),
        ]
        state.tasks.withLock { $0[taskId] = task }
        state.exportFiles.withLock { $0[taskId] = FileStore.urlPath(id: fileId, name: name) }
        return JSONReply(["task_id": .string(taskId)], status: .created)
    }

    /// The channels asked for: 1 to 25, each with `type` and `id`, dates in RFC 3339.
    static func channelRequests(_ value: RawJSON?, operation: String) throws -> [ChannelRequest] {
        guard let elements = value?.arrayValue, (1...maximumChannels).contains(elements.count) else {
            throw APIError.input(operation, "channels must be a list of 1 to \(maximumChannels) channels, each {\"type\": …, \"id\": …}")
        }
        return try elements.enumerated().map { index, element in
            guard let type = element["type"]?.stringValue, !type.isEmpty, let id = element["id"]?.stringValue, !id.isEmpty,
                let cid = try? ChannelId(cid: "\(type):\(id)")
            else {
                throw APIError.input(operation, "channels[\(index)] needs a channel type and id, such as {\"type\": \"messaging\", \"id\": \"general\"}")
            }
            func date(_ key: String) throws -> Date? {
                guard let value = element[key], !value.isNull else { return nil }
                guard let text = value.stringValue, let date = RFC3339.date(from: text) else {
                    throw APIError.input(operation, "channels[\(index)].\(key) must be an RFC 3339 date such as 2026-11-24T10:00:00Z")
                }
                return date
            }
            return ChannelRequest(cid: cid, since: try date("messages_since"), until: try date("messages_until"))
        }
    }

    /// One channel's entry of the file.
    static func export(_ request: ChannelRequest, _ options: Options, _ renderer: Renderer, _ db: Database, operation: String) throws -> JSONObject {
        let cid = request.cid
        guard let channel = try ChannelsTable.fetchIncludingDeleted(db, cid) else {
            throw APIError.input(operation, "channel \(cid.rawValue) does not exist")
        }
        if channel.deletedAt != nil, !options.includeSoftDeletedChannels {
            throw APIError.input(operation, "channel \(cid.rawValue) was deleted; include_soft_deleted_channels: true exports it")
        }
        var sql = "SELECT * FROM messages WHERE cid = ?"
        var arguments: StatementArguments = [cid.rawValue]
        if !options.includeTruncatedMessages {
            sql += " AND seq > \(MessagesTable.visibleSeq)"
            arguments += [cid.rawValue]
        }
        // RFC 3339 timestamps as the store writes them (UTC, microseconds) sort as text.
        if let since = request.since {
            sql += " AND created_at > ?"
            arguments += [StoreCoding.text(since)]
        }
        if let until = request.until {
            sql += " AND created_at < ?"
            arguments += [StoreCoding.text(until)]
        }
        let stored = try Row.fetchAll(db, cached: sql + " ORDER BY seq", arguments: arguments).map(MessagesTable.decode)
        var messages = try renderer.messages(stored, viewer: nil, in: db)
        if options.clearDeletedMessageText {
            for index in messages.indices where messages[index]["type"]?.stringValue == "deleted" {
                messages[index]["text"] = ""
                messages[index]["html"] = ""
            }
        }
        let members = try ChannelsTable.members(db, cid)
        let users = try UsersTable.fetch(db, ids: members.map(\.userId) + [channel.createdBy].compactMap { $0 })
        return [
            "channel": .object(renderer.channel(channel, memberCount: members.count, createdBy: channel.createdBy.flatMap { users[$0] })),
            "messages": .array(messages.map(RawJSON.object)),
            "members": .array(members.map { .object(renderer.member($0, users: users)) }),
        ]
    }
}

extension DevServerState {
    /// A task as `GET /tasks/{id}` answers it; an export's `result.url` is signed afresh.
    func task(_ id: String, baseURL: String, operation: String) throws -> JSONObject {
        guard var task = tasks.withLock({ $0[id] }) else { throw APIError.notFound(operation, "task \(id) does not exist") }
        if let path = exportFiles.withLock({ $0[id] }) {
            task["result"] = ["url": .string(signer.sign(path: path, baseURL: baseURL, now: clock.now()))]
        }
        return task
    }
}
