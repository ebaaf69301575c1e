import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Reactions, read state, typing and custom events.
struct InteractionRoutes {
    let state: DevServerState

    func register(on router: Router<DevRequestContext>) {
        router.post("/messages/:messageId/reaction") { request, context in try await react(request, context) }
        router.delete("/messages/:messageId/reaction/:reactionType") { request, context in try await unreact(request, context) }
        router.get("/messages/:messageId/reactions") { request, context in try await reactions(request, context) }
        router.post("/channels/:type/:id/read") { request, context in try await markRead(request, context) }
        router.post("/channels/:type/:id/unread") { request, context in try await markUnread(request, context) }
        router.post("/channels/read") { request, _ in try await markAllRead(request) }
        router.get("/unread") { request, _ in try await unreadCounts(request) }
        router.post("/unread_batch") { request, _ in try await unreadCountsBatch(request) }
        router.post("/channels/:type/:id/event") { request, context in try await sendEvent(request, context) }
    }

    /// `POST /messages/{id}/reaction`: adds (or, with `enforce_unique`, replaces) a reaction.
    func react(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "SendReaction"
        let principal = try await state.authenticate(request)
        let messageId = context.parameters.get("messageId") ?? ""
        let body = try await state.jsonBody(request, operation: operation)
        guard case .object(let input)? = body["reaction"] else {
            throw APIError.input(operation, "reaction is a required field and must be an object")
        }
        guard let type = input["type"]?.stringValue, !type.isEmpty, type.count <= 30 else {
            throw APIError.input(operation, "reaction.type is required (1 to 30 characters)")
        }
        let userId = try state.actingUser(principal, input.isEmpty ? body : input, operation: operation)
        let score = input["score"]?.intValue ?? 1
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (object, events) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            let message = try DevServerState.requireMessage(db, messageId, operation: operation)
            try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            try DevServerState.requireNotBanned(db, message.cid, userId, at: now, operation: operation)
            try DevServerState.requireNotFrozen(db, message.cid, principal, operation: operation)
            try UsersTable.ensure(db, userId, now: now)
            let existing = try MessagesTable.reaction(db, messageId, userId, type)
            if body["enforce_unique"]?.flag == true {
                try MessagesTable.deleteReactions(db, messageId, userId, exceptType: type)
            }
            let data = JSONObject(input.members.filter { !["type", "score", "user", "user_id", "message_id", "created_at", "updated_at"].contains($0.key) }.map { ($0.key, $0.value) })
            let reaction = StoredReaction(
                messageId: messageId, userId: userId, type: type, score: score, data: data, createdAt: existing?.createdAt ?? now,
                updatedAt: now)
            try MessagesTable.upsertReaction(db, reaction)
            let users = try UsersTable.fetch(db, ids: [userId])
            let renderedMessage = try renderer.messages([message], viewer: principal.userId, in: db)[0]
            let renderedReaction = renderer.reaction(reaction, users: users)
            var event = DevServerState.event(existing == nil ? "reaction.new" : "reaction.updated", message.cid, at: now)
            event["message"] = .object(renderedMessage)
            event["reaction"] = .object(renderedReaction)
            event["user"] = renderedReaction["user"]
            try DevServerState.log(db, event, cid: message.cid, at: now)
            return (["message": .object(renderedMessage), "reaction": .object(renderedReaction)], [PendingEvent(cid: message.cid, event: event)])
        }
        await state.publish(events)
        return JSONReply(object, status: .created)
    }

    /// `GET /messages/{id}/reactions?limit=&offset=`: the message's reactions, newest first
    /// (25 by default, at most 300).
    func reactions(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetReactions"
        let principal = try await state.authenticate(request)
        let messageId = context.parameters.get("messageId") ?? ""
        let limit = try DevServerState.pageParameter(request.queryValue("limit"), "limit", default: 25, range: 1...300, operation: operation)
        let offset = try DevServerState.pageParameter(request.queryValue("offset"), "offset", default: 0, range: 0...Int(Int32.max), operation: operation)
        let renderer = await state.renderer(for: request)
        let reactions = try await state.store.read { db -> [RawJSON] in
            let message = try DevServerState.requireMessage(db, messageId, operation: operation)
            try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            let reactions = try MessagesTable.reactions(db, messageId: messageId, limit: limit, offset: offset)
            let users = try UsersTable.fetch(db, ids: reactions.map(\.userId))
            return reactions.map { .object(renderer.reaction($0, users: users)) }
        }
        return JSONReply(["reactions": .array(reactions)])
    }

    /// `DELETE /messages/{id}/reaction/{type}?user_id=`.
    func unreact(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeleteReaction"
        let principal = try await state.authenticate(request)
        let messageId = context.parameters.get("messageId") ?? ""
        let type = context.parameters.get("reactionType") ?? ""
        let userId = try state.actingUser(principal, query: request, operation: operation)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (object, events) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            let message = try DevServerState.requireMessage(db, messageId, operation: operation)
            try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            try DevServerState.requireNotFrozen(db, message.cid, principal, operation: operation)
            guard let reaction = try MessagesTable.reaction(db, messageId, userId, type) else {
                throw APIError.notFound(operation, "user \(userId) has no \(type) reaction on message \(messageId)")
            }
            try MessagesTable.deleteReactions(db, messageId, userId, onlyType: type)
            let users = try UsersTable.fetch(db, ids: [userId])
            let renderedMessage = try renderer.messages([message], viewer: principal.userId, in: db)[0]
            let renderedReaction = renderer.reaction(reaction, users: users)
            var event = DevServerState.event("reaction.deleted", message.cid, at: now)
            event["message"] = .object(renderedMessage)
            event["reaction"] = .object(renderedReaction)
            event["user"] = renderedReaction["user"]
            try DevServerState.log(db, event, cid: message.cid, at: now)
            return (["message": .object(renderedMessage), "reaction": .object(renderedReaction)], [PendingEvent(cid: message.cid, event: event)])
        }
        await state.publish(events)
        return JSONReply(object)
    }

    /// `POST /channels/{type}/{id}/event`: typing indicators and custom events, sent to watchers.
    func sendEvent(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "SendEvent"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        guard case .object(let input)? = body["event"], let type = input["type"]?.stringValue, !type.isEmpty else {
            throw APIError.input(operation, "event with a type is required")
        }
        try Self.requireCustomType(type, operation: operation)
        let userId = try state.actingUser(principal, input, operation: operation)
        let now = state.clock.now()
        let event = try await state.store.write { db -> JSONObject in
            _ = try DevServerState.requireChannel(db, cid, operation: operation)
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            let user = try UsersTable.ensure(db, userId, now: now)
            var event = DevServerState.event(type, cid, at: now)
            for (key, value) in input where event[key] == nil && key != "user" && key != "user_id" { event[key] = value }
            let identity: JSONObject = ["id": .string(user.id)]
            event["user"] = .object(identity.merging(user.data))
            if !type.hasPrefix("typing.") { try DevServerState.log(db, event, cid: cid, at: now) }
            return event
        }
        await state.publish([PendingEvent(cid: cid, event: event)])
        return JSONReply(["event": .object(event)], status: .created)
    }
}

extension InteractionRoutes {
    /// The event types only the server sends; a client's event may not pose as one.
    static let reservedEventTypes: Set<String> = [
        "message.new", "message.updated", "message.deleted", "message.undeleted", "health.check", "connection.error",
    ]

    /// Refuses (code 18) an event type that only the server sends.
    static func requireCustomType(_ type: String, operation: String) throws {
        guard !reservedEventTypes.contains(type), !type.hasPrefix("notification.") else {
            throw APIError(code: 18, status: .badRequest, message: "\(operation) failed with error: \"event type \(type) cannot be sent by clients\"")
        }
    }
}

extension JSONObject {
    /// This object with `other`'s members added where absent.
    func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other where merged[key] == nil { merged[key] = value }
        return merged
    }
}
