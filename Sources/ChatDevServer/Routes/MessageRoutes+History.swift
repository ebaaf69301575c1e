import ChatModels
import Foundation
import GRDB
import Hummingbird

/// What a message said before its edits.
extension MessageRoutes {
    /// `POST /messages/history` with `filter: {"message_id": …}` (required), `sort` by
    /// `message_updated_at` (oldest first by default), `limit` (1 to 100, 25) and `next`: the
    /// versions of the message that edits replaced, each with its `text`, `attachments` and
    /// custom fields, when it was made (`message_updated_at`) and by whom
    /// (`message_updated_by_id`: the author for the first, the editor for the others). An edit
    /// that only pins or unpins keeps no version.
    func messageHistory(_ request: Request) async throws -> JSONReply {
        let operation = "QueryMessageHistory"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let filter = body["filter"]?.objectValue ?? [:]
        if let other = filter.members.map(\.key).first(where: { $0 != "message_id" }) {
            throw APIError.input(operation, "filter.\(other) is not supported by the dev server; filter on message_id")
        }
        guard let condition = filter["message_id"], let id = condition.stringValue ?? condition["$eq"]?.stringValue, !id.isEmpty else {
            throw APIError.input(operation, "filter.message_id is required: the id of the message whose history to read")
        }
        let sort = try DevServerState.sortKeys(body["sort"], fields: ["message_updated_at"], operation: operation)
        let newestFirst = sort.first.map { !$0.ascending } ?? false
        let limit = try DevServerState.pageParameter(body["limit"], "limit", default: 25, range: 1...100, operation: operation)
        let offset = try DevServerState.pageOffset(body["next"], operation: operation)
        let versions = try await state.store.read { db -> [MessageVersion] in
            let message = try DevServerState.requireMessage(db, id, operation: operation)
            try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            return try MessageHistoryTable.versions(db, of: id)
        }
        let ordered = newestFirst ? Array(versions.reversed()) : versions
        return JSONReply(DevServerState.page(ordered, under: "message_history", offset: offset, limit: limit, Self.entry))
    }

    /// A version as the history answers it: the message's fields as they were, flat.
    private static func entry(_ version: MessageVersion) -> JSONObject {
        var entry: JSONObject = [
            "message_id": .string(version.messageId), "text": version.data["text"] ?? "", "attachments": version.data["attachments"] ?? [],
            "message_updated_at": .string(RFC3339.string(from: version.madeAt)), "message_updated_by_id": .string(version.madeBy),
            "is_deleted": false,
        ]
        for (key, value) in version.data where entry[key] == nil && !serverOwnedKeys.contains(key) { entry[key] = value }
        return entry
    }
}
