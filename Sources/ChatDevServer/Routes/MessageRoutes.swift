import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Messages: send (with client ids), read, edit (full and partial), delete (soft and hard), undelete, replies, search.
struct MessageRoutes {
    let state: DevServerState

    /// Fields of a message request the server owns; the rest of the object is stored as sent.
    static let serverOwnedKeys = Set<String>([
        "id", "user", "user_id", "type", "cid", "created_at", "updated_at", "deleted_at", "html", "latest_reactions",
        "own_reactions", "reaction_counts", "reaction_scores", "reaction_groups", "reply_count", "deleted_reply_count",
        "parent_id", "member", "shadowed", "channel", "poll", "shared_location",
    ]).union(MessagePins.serverKeys)

    func register(on router: Router<DevRequestContext>) {
        router.post("/channels/:type/:id/message") { request, context in try await send(request, context) }
        router.get("/messages/:messageId") { request, context in try await get(request, context) }
        router.get("/channels/:type/:id/messages") { request, context in try await manyMessages(request, context) }
        router.get("/channels/:type/:id/pinned_messages") { request, context in try await pinnedMessages(request, context) }
        router.post("/messages/:messageId") { request, context in try await update(request, context, partial: false) }
        router.put("/messages/:messageId") { request, context in try await update(request, context, partial: true) }
        router.delete("/messages/:messageId") { request, context in try await delete(request, context) }
        router.get("/messages/:messageId/replies") { request, context in try await replies(request, context) }
        router.post("/messages/:messageId/action") { request, context in try await runAction(request, context) }
        router.post("/messages/:messageId/undelete") { request, context in try await undelete(request, context) }
        router.post("/messages/history") { request, _ in try await messageHistory(request) }
        router.post("/channels/:type/:id/draft") { request, context in try await saveDraft(request, context) }
        router.get("/channels/:type/:id/draft") { request, context in try await draft(request, context) }
        router.delete("/channels/:type/:id/draft") { request, context in try await deleteDraft(request, context) }
        router.post("/drafts/query") { request, _ in try await queryDrafts(request) }
        router.post("/messages/:messageId/reminders") { request, context in try await createReminder(request, context) }
        router.patch("/messages/:messageId/reminders") { request, context in try await updateReminder(request, context) }
        router.delete("/messages/:messageId/reminders") { request, context in try await deleteReminder(request, context) }
        router.post("/reminders/query") { request, _ in try await queryReminders(request) }
        router.post("/threads") { request, _ in try await queryThreads(request) }
        router.get("/threads/:messageId") { request, context in try await thread(request, context) }
        router.get("/search") { request, _ in try await search(request) }
        router.get("/og") { request, _ in try await openGraph(request) }
    }

    /// `POST /channels/{type}/{id}/message`.
    func send(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "SendMessage"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        guard case .object(let input)? = body["message"] else {
            throw APIError.input(operation, "message is a required field and must be an object")
        }
        let author = try state.actingUser(principal, input, operation: operation)
        let id = input["id"]?.stringValue ?? UUID().uuidString.lowercased()
        guard !id.isEmpty, id.count <= 255 else { throw APIError.input(operation, "message.id must be 1 to 255 characters") }
        try MessageRoutes.validate(input, operation: operation)
        let requestedType = input["type"]?.stringValue ?? "regular"
        guard requestedType == "regular" || requestedType == "system" else {
            throw APIError.input(operation, "message.type must be regular or system, not \(requestedType)")
        }
        let parentId = input["parent_id"]?.stringValue
        var data = JSONObject(input.members.filter { !MessageRoutes.serverOwnedKeys.contains($0.key) }.map { ($0.key, $0.value) })
        data = try MessagePins.applying(to: data, sent: input, before: nil, actor: author, now: state.clock.now(), operation: operation)
        if let refusal = try await frozenChannelRefusal(cid, principal, author: author, id: id, request: request, operation: operation) {
            return refusal
        }
        if let (command, args) = state.commands.invocation(of: data["text"]?.stringValue, inChannelType: cid.type.rawValue) {
            try await state.store.read { db in try checkSender(db, cid, principal, author, operation: operation) }
            let now = state.clock.now()
            let message = StoredMessage(
                id: id, cid: cid, userId: author, parentId: parentId, type: "regular", data: data, createdAt: now, updatedAt: now)
            return try await sendCommand(command, args: args, message: message, principal: principal, request: request)
        }
        if let hook = state.beforeSendHook {
            let message = StoredMessage(
                id: id, cid: cid, userId: author, parentId: parentId, type: parentId != nil ? "reply" : requestedType, data: data,
                createdAt: state.clock.now(), updatedAt: state.clock.now())
            switch try await checkBeforeSending(message, with: hook, idChosen: input["id"] != nil, principal: principal, request: request, context: context) {
            case .store(let checked): data = checked
            case .refused(let refusal): return refusal
            }
        }
        let enrichment = state.enrichmentMode(body)
        if enrichment == .beforeAnswering, let link = URLEnricher.linkToPreview(data) {
            // Checked before the link is fetched too: only someone who may post makes the server fetch.
            try await state.store.read { db in try checkSender(db, cid, principal, author, operation: operation) }
            data = URLEnricher.applying(await state.enricher.preview(of: link), to: data, isEdit: false)
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, events) = try await state.store.write { [data] db -> (JSONObject, [PendingEvent]) in
            try checkSender(db, cid, principal, author, at: now, operation: operation)
            try requireUnusedId(id, db, operation: operation)
            if let parentId {
                let parent = try DevServerState.requireMessage(db, parentId, operation: operation)
                guard parent.cid == cid else { throw APIError.input(operation, "parent message \(parentId) is in another channel") }
            }
            if let pollId = data["poll_id"] { try PollRoutes.requireSendable(pollId, by: author, db, operation: operation) }
            if let location = try LocationRoutes.sharedLocation(
                input["shared_location"], messageId: id, cid: cid, userId: author, now: now, operation: operation)
            {
                try SharedLocationsTable.insert(db, location)
            }
            try UsersTable.ensure(db, author, now: now)
            if let user = input["user"]?.objectValue, user.count > 1 { try UsersTable.upsert(db, user, id: author, now: now, replace: false) }
            let message = StoredMessage(
                id: id, cid: cid, userId: author, parentId: parentId, type: parentId != nil ? "reply" : requestedType, data: data,
                createdAt: now, updatedAt: now)
            let (rendered, event) = try MessageRoutes.post(message, renderer: renderer, viewer: principal.userId, db)
            return (rendered, [event])
        }
        await state.publish(events)
        if enrichment == .afterAnswering, URLEnricher.linkToPreview(data) != nil { addPreviewLater(to: id, renderer: renderer) }
        return JSONReply(["message": .object(rendered)], status: .created)
    }

    /// Fails when a message with `id` already exists (ids are the client's to choose).
    static func requireNewId(_ id: String, _ db: Database, operation: String) throws {
        if try MessagesTable.fetch(db, id) != nil {
            throw APIError.input(operation, "a message with ID \(id) already exists")
        }
    }

    /// Fails when a message with `id` exists, stored or ephemeral (a new message's id is free in both).
    func requireUnusedId(_ id: String, _ db: Database, operation: String) throws {
        try MessageRoutes.requireNewId(id, db, operation: operation)
        guard !state.ephemeral.contains(id) else { throw APIError.input(operation, "a message with ID \(id) already exists") }
    }

    /// Stores a new message in its channel and builds its `message.new` event (logged) with the
    /// `notification.message_new` for members not watching.
    static func post(_ message: StoredMessage, renderer: Renderer, viewer: String?, _ db: Database) throws -> (JSONObject, PendingEvent) {
        let cid = message.cid
        let now = message.createdAt
        try MessagesTable.insert(db, message)
        try ChannelsTable.touchLastMessage(db, cid, at: now)
        // The message sent is the draft its author had there, which goes.
        _ = try DraftsTable.remove(db, cid, message.userId, parentId: message.parentId ?? "")
        // A new message shows a hidden channel again to the members that hid it, as on the service.
        try ChannelsTable.showToAll(db, cid)
        // Posting in the channel reads it for the sender, as on the service.
        if message.parentId == nil || message.data["show_in_channel"]?.boolValue == true {
            try MessagesTable.markRead(db, cid, message.userId, messageId: message.id, at: now)
        }
        let rendered = try renderer.messages([message], viewer: viewer, in: db)[0]
        let members = try ChannelsTable.members(db, cid)
        let channel = try DevServerState.requireChannel(db, cid, operation: "SendMessage")
        var event = DevServerState.event("message.new", cid, at: now)
        event["message_id"] = .string(message.id)
        event["message"] = .object(rendered)
        event["user"] = rendered["user"]
        event["channel_member_count"] = .number(JSONNumber(members.count))
        event["channel_message_count"] = .number(JSONNumber(try MessagesTable.count(db, cid)))
        event["channel_custom"] = .object(channel.data)
        try DevServerState.log(db, event, cid: cid, at: now)
        var notification = event
        notification["type"] = "notification.message_new"
        let users = try UsersTable.fetch(db, ids: [channel.createdBy].compactMap { $0 })
        notification["channel"] = .object(
            renderer.channel(channel, memberCount: members.count, createdBy: channel.createdBy.flatMap { users[$0] }))
        return (rendered, PendingEvent(cid: cid, event: event, notification: notification, notify: Set(members.map(\.userId))))
    }

    /// Fails unless `author` may post in `cid` now.
    func checkSender(
        _ db: Database, _ cid: ChannelId, _ principal: Principal, _ author: String, at now: Date? = nil, operation: String
    ) throws {
        _ = try DevServerState.requireChannel(db, cid, operation: operation)
        try DevServerState.requireAccess(db, cid, principal, operation: operation)
        try DevServerState.requireNotBanned(db, cid, author, at: now ?? state.clock.now(), operation: operation)
        try DevServerState.requireNotBlocked(db, cid, author, operation: operation)
    }

    /// Text length, attachment count and shape, mention count: what the service refuses.
    static func validate(_ input: JSONObject, operation: String) throws {
        if let text = input["text"], !text.isNull {
            guard let string = text.stringValue else { throw APIError.input(operation, "message.text must be a string") }
            guard string.count <= 5000 else {
                throw APIError(code: 20, status: .badRequest, message: "\(operation) failed with error: \"message is too long (\(string.count) > 5000 characters)\"")
            }
        }
        if let attachments = input["attachments"], !attachments.isNull {
            guard case .array(let elements) = attachments else { throw APIError.input(operation, "message.attachments must be an array") }
            guard elements.count <= 30 else { throw APIError.input(operation, "a message can have at most 30 attachments") }
            if let bad = elements.firstIndex(where: { $0.objectValue == nil }) {
                throw APIError.input(operation, "message.attachments[\(bad)] must be an object")
            }
        }
        if let mentions = input["mentioned_users"]?.arrayValue, mentions.count > 100 {
            throw APIError.input(operation, "a message can mention at most 100 users")
        }
    }

    /// `GET /messages/{id}`: the message with freshly signed links, plus its channel.
    func get(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetMessage"
        let principal = try await state.authenticate(request)
        let id = context.parameters.get("messageId") ?? ""
        let renderer = await state.renderer(for: request)
        let object = try await state.store.read { db -> JSONObject in
            let message = try DevServerState.requireMessage(db, id, operation: operation)
            try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            var rendered = try renderer.messages([message], viewer: principal.userId, in: db)[0]
            let channel = try DevServerState.requireChannel(db, message.cid, operation: operation)
            let memberCount = try ChannelsTable.memberCount(db, message.cid)
            let creator = try channel.createdBy.flatMap { try UsersTable.fetch(db, $0) }
            rendered["channel"] = .object(renderer.channel(channel, memberCount: memberCount, createdBy: creator))
            return ["message": .object(rendered)]
        }
        return JSONReply(object)
    }

    /// `DELETE /messages/{id}`: soft by default, `hard=true|1` removes it for good.
    func delete(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeleteMessage"
        let principal = try await state.authenticate(request)
        let id = context.parameters.get("messageId") ?? ""
        let hard = request.queryFlag("hard")
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (rendered, events) = try await state.store.write { db -> (JSONObject, [PendingEvent]) in
            var message = try DevServerState.requireMessage(db, id, operation: operation)
            try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            if let userId = principal.userId, userId != message.userId {
                throw APIError.forbidden(operation, "user \(userId) may only delete their own messages")
            }
            if message.deletedAt == nil { message.typeBeforeDelete = message.type }
            message.type = "deleted"
            message.deletedAt = now
            message.updatedAt = now
            if hard {
                try MessagesTable.delete(db, id)
            } else {
                try MessagesTable.update(db, message)
            }
            let (rendered, event) = try MessageRoutes.announce(
                message, as: "message.deleted", extra: ["hard_delete": .bool(hard)], viewer: principal.userId, renderer: renderer, at: now, in: db)
            return (rendered, [event])
        }
        await state.publish(events)
        return JSONReply(["message": .object(rendered)])
    }

    /// `GET /messages/{id}/replies?limit=`: a thread, oldest first.
    func replies(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetReplies"
        let principal = try await state.authenticate(request)
        let id = context.parameters.get("messageId") ?? ""
        let limit = min(max(Int(request.query("limit") ?? "") ?? 100, 1), 300)
        let renderer = await state.renderer(for: request)
        let messages = try await state.store.read { db -> [JSONObject] in
            let parent = try DevServerState.requireMessage(db, id, operation: operation)
            try DevServerState.requireAccess(db, parent.cid, principal, operation: operation)
            return try renderer.messages(try MessagesTable.replies(db, parentId: id, limit: limit), viewer: principal.userId, in: db)
        }
        return JSONReply(["messages": .array(messages.map(RawJSON.object))])
    }
}
