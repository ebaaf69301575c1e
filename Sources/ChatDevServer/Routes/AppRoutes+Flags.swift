import ChatModels
import Foundation
import GRDB
import Hummingbird

extension AppRoutes {
    /// `GET /moderation/flags/message?payload={"filter_conditions": …}` (the SDKs'
    /// `query_message_flags`): the flagged messages, newest first. Filters: `channel_cid` and
    /// `user_id` (who flagged), each a value, `{"$eq": value}` or `{"$in": [values]}`.
    func queryMessageFlags(_ request: Request) async throws -> JSONReply {
        let operation = "QueryMessageFlags"
        try await state.requireServer(request, operation, "message flags can only be queried")
        let payload = try state.payloadQuery(request, operation: operation)
        let filter = payload["filter_conditions"]?.objectValue ?? [:]
        let channels = try Self.values(filter["channel_cid"], field: "channel_cid", operation: operation)
        let flaggers = try Self.values(filter["user_id"], field: "user_id", operation: operation)
        let (limit, offset) = Self.page(payload)
        let renderer = await state.renderer(for: request)
        var conditions = SQLConditions("f.target_message_id IS NOT NULL")
        conditions.add("m.cid", in: channels)
        conditions.add("f.user_id", in: flaggers)
        let sql = """
            SELECT m.*, f.user_id AS flag_user_id, f.reason AS flag_reason, f.created_at AS flag_created_at
            FROM flags f JOIN messages m ON m.id = f.target_message_id
            WHERE \(conditions.sql) ORDER BY f.seq DESC LIMIT \(limit) OFFSET \(offset)
            """
        let arguments = conditions.arguments
        let flags = try await state.store.read { db -> [RawJSON] in
            let rows = try Row.fetchAll(db, cached: sql, arguments: arguments)
            let messages = try renderer.messages(rows.map(MessagesTable.decode), viewer: nil, in: db)
            return zip(rows, messages).map { row, message in
                var flag: JSONObject = [
                    "user": .object(["id": .string(row["flag_user_id"] ?? "")]), "message": .object(message),
                    "created_at": .string(row["flag_created_at"] ?? ""),
                ]
                if let reason: String = row["flag_reason"] { flag["reason"] = .string(reason) }
                return .object(flag)
            }
        }
        return JSONReply(["flags": .array(flags)])
    }

    /// The `limit` (1...100, 25 when absent) and `offset` (0 or more) of a query's payload.
    static func page(_ payload: JSONObject) -> (limit: Int, offset: Int) {
        (min(max(payload["limit"]?.intValue ?? 25, 1), 100), max(payload["offset"]?.intValue ?? 0, 0))
    }

    /// The values a filter field accepts: nil when the field is absent (anything matches).
    static func values(_ condition: RawJSON?, field: String, operation: String) throws -> Set<String>? {
        guard let condition else { return nil }
        return try FilterConditions.strings(condition, key: field, operation: operation)
    }

    /// `POST /moderation/unflag` with `target_message_id` or `target_user_id`: takes back the
    /// acting user's flag on it; one that user never set is a 404 naming both.
    func unflag(_ request: Request) async throws -> JSONReply {
        let operation = "Unflag"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let messageId = body["target_message_id"]?.stringValue
        let targetUser = body["target_user_id"]?.stringValue
        guard (messageId == nil) != (targetUser == nil) else {
            throw APIError.input(operation, "either target_message_id or target_user_id is required, not both")
        }
        let flagger = try state.actingUser(principal, body, operation: operation)
        try await state.store.write { db in
            if let messageId {
                let message = try DevServerState.requireMessage(db, messageId, operation: operation)
                try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            }
            let column = messageId != nil ? "target_message_id" : "target_user_id"
            try db.execute(sql: "DELETE FROM flags WHERE \(column) = ? AND user_id = ?", arguments: [messageId ?? targetUser, flagger])
            guard db.changesCount > 0 else {
                let target = messageId.map { "message \($0)" } ?? "user \(targetUser ?? "")"
                throw APIError.notFound(operation, "user \(flagger) has not flagged \(target)")
            }
        }
        var flag: JSONObject = ["user": .object(["id": .string(flagger)])]
        if let messageId { flag["target_message_id"] = .string(messageId) }
        if let targetUser { flag["target_user"] = .object(["id": .string(targetUser)]) }
        return JSONReply(["flag": .object(flag)], status: .created)
    }
}
