import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Threads: a message with replies, listed for the users taking part in them.
extension MessageRoutes {
    /// Fields `POST /threads` filters on.
    static let threadFilterFields: Set<String> = ["channel_cid", "parent_message_id", "created_by_user_id"]
    /// Fields `POST /threads` sorts by.
    static let threadSortFields: Set<String> = ["last_message_at", "created_at", "reply_count"]

    /// `POST /threads` with `filter` (`channel_cid`, `parent_message_id`, `created_by_user_id`:
    /// a value, `$eq` or `$in`), `sort` (`last_message_at`, newest first by default,
    /// `created_at`, `reply_count`), `limit` (1 to 25, 10), `reply_limit` (0 to 10, 2),
    /// `participant_limit` (0 to 100, 100), `next` (the previous page's) and, with a server
    /// token, `user_id`: the threads of the user's channels it takes part in (it wrote the
    /// parent or a reply). The dev server keeps no read state per thread, so threads carry no
    /// `read`.
    func queryThreads(_ request: Request) async throws -> JSONReply {
        let operation = "QueryThreads"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let filter = body["filter"]?.objectValue ?? [:]
        if let unsupported = filter.members.map(\.key).first(where: { !Self.threadFilterFields.contains($0) }) {
            let supported = Self.threadFilterFields.sorted().joined(separator: ", ")
            throw APIError.input(operation, "filter.\(unsupported) is not supported by the dev server; use \(supported)")
        }
        let conditions = try filter.members.map { ($0.key, try FilterConditions.strings($0.value, key: $0.key, operation: operation)) }
        let sort = try DevServerState.sortKeys(body["sort"], fields: Self.threadSortFields, operation: operation)
        let limit = try DevServerState.pageParameter(body["limit"], "limit", default: 10, range: 1...25, operation: operation)
        let shape = try ThreadShape(body, operation: operation)
        let offset = try DevServerState.pageOffset(body["next"], operation: operation)
        let renderer = await state.renderer(for: request)
        let answer = try await state.store.read { db -> JSONObject in
            var parents = try ThreadRows.parents(db, participant: userId)
            for (field, values) in conditions {
                parents = parents.filter { values.contains(Self.threadField(field, of: $0)) }
            }
            parents.sort { first, second in
                for (field, ascending) in sort.isEmpty ? [("last_message_at", false)] : sort {
                    let (a, b) = (Self.threadSortValue(field, of: first), Self.threadSortValue(field, of: second))
                    if a != b { return ascending ? a < b : a > b }
                }
                return first.parent.id < second.parent.id
            }
            return try DevServerState.page(parents, under: "threads", offset: offset, limit: limit) {
                try renderer.thread($0, shape: shape, viewer: userId, db)
            }
        }
        return JSONReply(answer)
    }

    /// `GET /threads/{message_id}?reply_limit=&participant_limit=`: one thread (404 for a
    /// message that has no replies, which is no thread).
    func thread(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetThread"
        let principal = try await state.authenticate(request)
        let id = context.parameters.get("messageId") ?? ""
        let shape = try ThreadShape(
            ["reply_limit": request.queryValue("reply_limit") ?? .null, "participant_limit": request.queryValue("participant_limit") ?? .null],
            operation: operation)
        let renderer = await state.renderer(for: request)
        let thread = try await state.store.read { db -> JSONObject in
            let parent = try DevServerState.requireMessage(db, id, operation: operation)
            try DevServerState.requireAccess(db, parent.cid, principal, operation: operation)
            guard let row = try ThreadRows.thread(db, parent: parent) else {
                throw APIError.notFound(operation, "message \(id) has no replies, so it starts no thread")
            }
            return try renderer.thread(row, shape: shape, viewer: principal.userId, db)
        }
        return JSONReply(["thread": .object(thread)])
    }

    private static func threadField(_ field: String, of row: ThreadRow) -> String {
        switch field {
        case "channel_cid": row.parent.cid.rawValue
        case "parent_message_id": row.parent.id
        default: row.parent.userId
        }
    }

    private static func threadSortValue(_ field: String, of row: ThreadRow) -> Double {
        switch field {
        case "reply_count": Double(row.replyCount)
        case "created_at": row.parent.createdAt.timeIntervalSince1970
        default: row.lastReplyAt.timeIntervalSince1970
        }
    }
}

/// How much of each thread is rendered: its latest replies and its participants.
struct ThreadShape: Sendable {
    var replyLimit: Int
    var participantLimit: Int

    init(_ body: JSONObject, operation: String) throws {
        replyLimit = try DevServerState.pageParameter(body["reply_limit"], "reply_limit", default: 2, range: 0...10, operation: operation)
        participantLimit = try DevServerState.pageParameter(
            body["participant_limit"], "participant_limit", default: 100, range: 0...100, operation: operation)
    }
}
