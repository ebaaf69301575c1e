import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Drafts: a message a member started in a channel or a thread and has not sent yet.
extension MessageRoutes {
    /// `POST /channels/{type}/{id}/draft` with `message` (`text`, `attachments`, `parent_id` for a
    /// thread, custom fields; `user_id` with a server token): saves the member's draft there,
    /// replacing the one it had, and tells its connections with `draft.updated`. Sending a
    /// message there later removes it.
    func saveDraft(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "CreateDraft"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        guard case .object(let input)? = body["message"] else { throw APIError.input(operation, "message is a required field and must be an object") }
        try MessageRoutes.validate(input, operation: operation)
        let userId = try state.actingUser(principal, input.isEmpty ? body : input, operation: operation)
        let parentId = input["parent_id"]?.stringValue ?? ""
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let draft = try await state.store.write { db -> JSONObject in
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            _ = try DevServerState.requireMember(db, cid, userId, operation: operation)
            if !parentId.isEmpty {
                let parent = try DevServerState.requireMessage(db, parentId, operation: operation)
                guard parent.cid == cid else { throw APIError.input(operation, "parent_id \(parentId) is a message of another channel") }
            }
            let data = JSONObject(input.members.filter { !MessageRoutes.serverOwnedKeys.contains($0.key) }.map { ($0.key, $0.value) })
            let stored = StoredDraft(cid: cid, userId: userId, parentId: parentId, data: data, createdAt: now)
            try DraftsTable.store(db, stored)
            return try renderer.draft(stored, db)
        }
        await state.publishUserEvent(Self.draftEvent("draft.updated", draft, cid, at: now), to: [userId])
        return JSONReply(["draft": .object(draft)], status: .created)
    }

    /// `GET /channels/{type}/{id}/draft?user_id=&parent_id=`: the member's draft there (404 when
    /// it has none).
    func draft(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetDraft"
        let (principal, cid, userId, parentId) = try await draftKey(request, context, operation)
        let renderer = await state.renderer(for: request)
        let draft = try await state.store.read { db -> JSONObject in
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            guard let stored = try DraftsTable.fetch(db, cid, userId, parentId: parentId) else {
                throw APIError.notFound(operation, "user \(userId) has no draft in \(Self.place(cid, parentId))")
            }
            return try renderer.draft(stored, db)
        }
        return JSONReply(["draft": .object(draft)])
    }

    /// `DELETE /channels/{type}/{id}/draft?user_id=&parent_id=`: removes the member's draft
    /// there (404 when it has none) and tells its connections with `draft.deleted`.
    func deleteDraft(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeleteDraft"
        let (principal, cid, userId, parentId) = try await draftKey(request, context, operation)
        let now = state.clock.now()
        try await state.store.write { db in
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            guard try DraftsTable.remove(db, cid, userId, parentId: parentId) else {
                throw APIError.notFound(operation, "user \(userId) has no draft in \(Self.place(cid, parentId))")
            }
        }
        var draft: JSONObject = ["channel_cid": .string(cid.rawValue)]
        if !parentId.isEmpty { draft["parent_id"] = .string(parentId) }
        await state.publishUserEvent(Self.draftEvent("draft.deleted", draft, cid, at: now), to: [userId])
        return JSONReply()
    }

    /// `POST /drafts/query` with `user_id` (a user token reads its own), `filter` (`channel_cid`:
    /// a value, `$eq` or `$in`), `limit` (1 to 100, 25) and `next`: the user's drafts, newest first.
    func queryDrafts(_ request: Request) async throws -> JSONReply {
        let operation = "QueryDrafts"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let userId = try state.actingUser(principal, body, operation: operation)
        let filter = body["filter"]?.objectValue ?? [:]
        if let other = filter.members.map(\.key).first(where: { $0 != "channel_cid" }) {
            throw APIError.input(operation, "filter.\(other) is not supported by the dev server; filter on channel_cid")
        }
        let channels = try filter["channel_cid"].map { try FilterConditions.strings($0, key: "channel_cid", operation: operation) }
        let limit = try DevServerState.pageParameter(body["limit"], "limit", default: 25, range: 1...100, operation: operation)
        let offset = try DevServerState.pageOffset(body["next"], operation: operation)
        let renderer = await state.renderer(for: request)
        return JSONReply(
            try await state.store.read { db in
                let all = try DraftsTable.drafts(of: userId, db).filter { channels?.contains($0.cid.rawValue) ?? true }
                return try DevServerState.page(all, under: "drafts", offset: offset, limit: limit) { try renderer.draft($0, db) }
            })
    }

    /// Who asks, the channel, the member (`user_id`, or the token's user) and the thread of a draft request.
    private func draftKey(_ request: Request, _ context: DevRequestContext, _ operation: String) async throws
        -> (Principal, ChannelId, String, String)
    {
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let userId = try state.actingUser(principal, query: request, operation: operation)
        return (principal, cid, userId, request.query("parent_id") ?? "")
    }

    private static func place(_ cid: ChannelId, _ parentId: String) -> String {
        parentId.isEmpty ? "channel \(cid.rawValue)" : "the thread of message \(parentId) in \(cid.rawValue)"
    }

    private static func draftEvent(_ type: String, _ draft: JSONObject, _ cid: ChannelId, at now: Date) -> JSONObject {
        var event = DevServerState.event(type, cid, at: now)
        event["draft"] = .object(draft)
        return event
    }
}

extension Renderer {
    /// A draft as answers and `draft.updated` carry it: its channel, thread and message.
    func draft(_ draft: StoredDraft, _ db: Database) throws -> JSONObject {
        var message = draft.data
        message["id"] = .string("draft-\(draft.userId)-\(draft.cid.rawValue)-\(draft.parentId)")
        message["text"] = message["text"] ?? ""
        if !draft.parentId.isEmpty { message["parent_id"] = .string(draft.parentId) }
        var object: JSONObject = [
            "channel_cid": .string(draft.cid.rawValue), "message": .object(message), "created_at": .string(RFC3339.string(from: draft.createdAt)),
        ]
        if !draft.parentId.isEmpty { object["parent_id"] = .string(draft.parentId) }
        if let channel = try ChannelsTable.fetch(db, draft.cid) {
            object["channel"] = .object(self.channel(channel, memberCount: try ChannelsTable.memberCount(db, draft.cid), createdBy: nil))
        }
        return object
    }
}
