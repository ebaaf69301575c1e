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
        guard try await state.authenticate(request) == .server else {
            throw APIError.forbidden(operation, "message flags can only be queried with a server token")
        }
        let payload = try state.payloadQuery(request, operation: operation)
        let filter = payload["filter_conditions"]?.objectValue ?? [:]
        let channels = try Self.values(filter["channel_cid"], field: "channel_cid", operation: operation)
        let flaggers = try Self.values(filter["user_id"], field: "user_id", operation: operation)
        let limit = min(max(payload["limit"]?.intValue ?? 25, 1), 100)
        let offset = max(payload["offset"]?.intValue ?? 0, 0)
        let renderer = await state.renderer(for: request)
        let flags = try await state.store.read { db -> [RawJSON] in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM flags WHERE target_message_id IS NOT NULL ORDER BY seq DESC")
            var found: [RawJSON] = []
            var skipped = 0
            for row in rows {
                let flagger: String? = row["user_id"]
                if let flaggers, !flaggers.contains(flagger ?? "") { continue }
                guard let messageId: String = row["target_message_id"], let message = try MessagesTable.fetch(db, messageId) else { continue }
                if let channels, !channels.contains(message.cid.rawValue) { continue }
                guard skipped >= offset else {
                    skipped += 1
                    continue
                }
                var flag: JSONObject = [
                    "user": .object(["id": .string(flagger ?? "")]),
                    "message": .object(try renderer.messages([message], viewer: nil, in: db)[0]),
                    "created_at": .string(row["created_at"] ?? ""),
                ]
                if let reason: String = row["reason"] { flag["reason"] = .string(reason) }
                found.append(.object(flag))
                if found.count == limit { break }
            }
            return found
        }
        return JSONReply(["flags": .array(flags)])
    }

    /// The values a filter field accepts: nil when the field is absent (anything matches).
    static func values(_ condition: RawJSON?, field: String, operation: String) throws -> Set<String>? {
        guard let condition else { return nil }
        if let value = condition.stringValue { return [value] }
        if let value = condition["$eq"]?.stringValue { return [value] }
        if let values = condition["$in"]?.arrayValue {
            return Set(values.compactMap(\.stringValue))
        }
        throw APIError.input(operation, "filter_conditions.\(field) must be a string, {\"$eq\": …} or {\"$in\": […]}")
    }
}
