import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Partial updates (freezing among them), truncation and deletion of a channel.
extension ChannelRoutes {
    /// Channel fields the server owns: `set` and `unset` may not touch them.
    static let reservedChannelFields: Set<String> = [
        "cid", "id", "type", "created_by", "created_by_id", "created_at", "updated_at", "deleted_at", "truncated_at",
        "last_message_at", "member_count", "members", "config", "own_capabilities", "disabled", "hidden",
    ]

    /// `PATCH /channels/{type}/{id}`: `{"set": {...}, "unset": [...]}` on the channel's fields;
    /// `frozen` (a boolean) freezes or thaws it.
    func updatePartial(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UpdateChannelPartial"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        let (set, unset) = try ChannelRoutes.partialChanges(body, operation: operation)
        // A user token acts as its own user whatever the body says; a server call may name one.
        let actor = try? state.actingUser(principal, body, operation: operation)
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (object, event) = try await state.store.write { db -> (JSONObject, PendingEvent) in
            var channel = try DevServerState.requireChannel(db, cid, operation: operation)
            try ChannelRoutes.requireManager(db, channel, principal, operation: operation)
            for key in unset {
                if key == "frozen" { channel.frozen = false } else { channel.data[key] = nil }
            }
            for (key, value) in set {
                if key == "frozen" { channel.frozen = value.boolValue ?? false } else { channel.data[key] = value }
            }
            channel.updatedAt = now
            try ChannelsTable.update(db, channel)
            let members = try ChannelsTable.members(db, cid)
            let event = try ChannelRoutes.channelEvent(
                "channel.updated", channel, memberCount: members.count, by: actor, renderer: renderer, at: now, db)
            let users = try UsersTable.fetch(db, ids: members.map(\.userId))
            return (
                ["channel": event.event["channel"] ?? .null, "members": .array(members.map { .object(renderer.member($0, users: users)) })],
                event
            )
        }
        await state.publish([event])
        return JSONReply(object)
    }

    /// The `set` and `unset` of a partial update, checked: at least one change, no server
    /// field, no field in both, `frozen` a boolean, `name` and `image` strings.
    static func partialChanges(_ body: JSONObject, operation: String) throws -> (set: JSONObject, unset: [String]) {
        let changes = try FieldChanges(body, reserved: reservedChannelFields, operation: operation)
        let (set, unset) = (changes.set, changes.unset)
        if let frozen = set["frozen"], frozen.boolValue == nil {
            throw APIError.input(operation, "frozen must be true or false, not \(frozen.kindDescription)")
        }
        for key in ["name", "image"] {
            if let value = set[key], !value.isNull, value.stringValue == nil {
                throw APIError.input(operation, "\(key) must be a string, not \(value.kindDescription)")
            }
        }
        return (set, unset)
    }

    /// `POST /channels/{type}/{id}/truncate`: hides the channel's messages up to `truncated_at`
    /// (default: now), soft-deleted, or removed for good with `hard_delete`; an optional
    /// `message` is posted afterwards.
    func truncate(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "TruncateChannel"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        let hard = body["hard_delete"]?.flag ?? false
        var upTo: Date?
        if let value = body["truncated_at"], !value.isNull {
            guard let text = value.stringValue, let date = RFC3339.date(from: text) else {
                throw APIError.input(operation, "truncated_at must be an RFC 3339 date such as 2026-11-24T10:00:00Z")
            }
            upTo = date
        }
        // A user token acts as its own user whatever the body says; a server call may name one.
        let actor = try? state.actingUser(principal, body, operation: operation)
        var notice: JSONObject?
        if let value = body["message"], !value.isNull {
            guard let object = value.objectValue else { throw APIError.input(operation, "message must be an object") }
            try MessageRoutes.validate(object, operation: operation)
            notice = object
        }
        let author = try notice.map { try state.actingUser(principal, $0["user"] != nil || $0["user_id"] != nil ? $0 : body, operation: operation) }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (object, events) = try await state.store.write { [notice, upTo] db -> (JSONObject, [PendingEvent]) in
            var channel = try DevServerState.requireChannel(db, cid, operation: operation)
            try ChannelRoutes.requireManager(db, channel, principal, operation: operation)
            try ChannelRoutes.hideMessages(of: &channel, upTo: min(upTo ?? now, now), hard: hard, at: now, db)
            channel.updatedAt = now
            try ChannelsTable.update(db, channel)
            let truncated = try ChannelRoutes.channelEvent(
                "channel.truncated", channel, memberCount: try ChannelsTable.memberCount(db, cid), by: actor, renderer: renderer, at: now, db)
            var reply: JSONObject = ["channel": truncated.event["channel"] ?? .null]
            var events = [truncated]
            if let notice, let author {
                try UsersTable.ensure(db, author, now: now)
                let data = JSONObject(notice.members.filter { !MessageRoutes.serverOwnedKeys.contains($0.key) }.map { ($0.key, $0.value) })
                // Its own moment, after the truncation's, so /sync replays the two in order.
                let posted = state.clock.now()
                let message = StoredMessage(
                    id: notice["id"]?.stringValue ?? UUID().uuidString.lowercased(), cid: cid, userId: author, parentId: nil,
                    type: notice["type"]?.stringValue == "regular" ? "regular" : "system", data: data, createdAt: posted,
                    updatedAt: posted)
                try MessageRoutes.requireNewId(message.id, db, operation: operation)
                let (rendered, event) = try MessageRoutes.post(message, renderer: renderer, viewer: principal.userId, db)
                reply["message"] = .object(rendered)
                events.append(event)
            }
            return (reply, events)
        }
        await state.publish(events)
        return JSONReply(object, status: .created)
    }

    /// `DELETE /channels/{type}/{id}?hard_delete=`: the channel answers as missing from now on,
    /// its members leave, and its messages are soft-deleted (or removed for good with
    /// `hard_delete`). Creating the channel again starts it empty.
    func delete(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "DeleteChannel"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        return JSONReply(try await delete(cid, hard: request.queryFlag("hard_delete"), by: principal, request, operation))
    }

    /// `POST /channels/delete` with `cids` (1 to 100) and `hard_delete`: deletes each channel as
    /// `DELETE /channels/{type}/{id}` does and answers a `task_id` for `GET /tasks/{id}`,
    /// completed already, whose `result` says per channel `ok` or why it was not deleted.
    func deleteMany(_ request: Request) async throws -> JSONReply {
        let operation = "DeleteChannels"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        guard let texts = body["cids"]?.arrayValue?.compactMap(\.stringValue), (1...100).contains(texts.count) else {
            throw APIError.input(operation, "cids must be a list of 1 to 100 channel ids (type:id)")
        }
        let cids = try texts.map { text in
            guard let cid = try? ChannelId(cid: text) else {
                throw APIError.input(operation, "cids: \(text) is not a channel id; write type:id, for example messaging:general")
            }
            return cid
        }
        let hard = body["hard_delete"]?.flag ?? false
        let task = try await state.runTask(for: cids) { cid in _ = try await delete(cid, hard: hard, by: principal, request, operation) }
        return JSONReply(["task_id": .string(task)], status: .created)
    }

    /// Deletes channel `cid`: it answers as missing from then on, its members leave, and its
    /// messages are soft-deleted (or removed for good when `hard`); returns the answer's body.
    private func delete(_ cid: ChannelId, hard: Bool, by principal: Principal, _ request: Request, _ operation: String) async throws
        -> JSONObject
    {
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let (object, event) = try await state.store.write { db -> (JSONObject, PendingEvent) in
            var channel = try DevServerState.requireChannel(db, cid, operation: operation)
            try ChannelRoutes.requireManager(db, channel, principal, operation: operation)
            let members = try ChannelsTable.members(db, cid)
            try ChannelRoutes.hideMessages(of: &channel, upTo: nil, hard: hard, at: now, db)
            channel.deletedAt = now
            channel.updatedAt = now
            // Rendered (and logged) with the member count the channel had before its members leave.
            var pending = try ChannelRoutes.channelEvent(
                "channel.deleted", channel, memberCount: members.count, by: principal.userId, renderer: renderer, at: now, db)
            try ChannelsTable.update(db, channel)
            _ = try ChannelsTable.removeMembers(db, cid, members.map(\.userId))
            try MessagesTable.forgetReads(db, cid)
            var notification = pending.event
            notification["type"] = "notification.channel_deleted"
            pending.notification = notification
            pending.notify = Set(members.map(\.userId))
            return (["channel": pending.event["channel"] ?? .null], pending)
        }
        await state.publish([event])
        return object
    }

    /// Hides the channel's messages created up to `date` (all of them when nil) from its
    /// history, soft-deleting them or, with `hard`, removing them; records the truncation.
    static func hideMessages(of channel: inout StoredChannel, upTo date: Date?, hard: Bool, at now: Date, _ db: Database) throws {
        if let seq = try MessagesTable.lastSeq(db, channel.cid, upTo: date) {
            try MessagesTable.truncate(db, channel.cid, upTo: seq, hard: hard, at: now)
            channel.truncatedSeq = max(channel.truncatedSeq ?? 0, seq)
        }
        channel.truncatedAt = date ?? now
    }

    /// Fails unless `principal` may change the channel itself: a server token, an admin, the
    /// channel's creator or one of its moderators (members may not).
    static func requireManager(_ db: Database, _ channel: StoredChannel, _ principal: Principal, operation: String) throws {
        guard let userId = principal.userId else { return }
        if channel.createdBy == userId { return }
        if try AppRoutes.isModerator(db, userId, in: channel.cid) { return }
        throw APIError.forbidden(
            operation, "user \(userId) may not change channel \(channel.cid.rawValue): only its creator, its moderators and admins may")
    }

    /// A channel event (`channel.updated`, `channel.truncated`, ...) carrying the whole channel
    /// as clients read it, logged for `/sync`.
    static func channelEvent(
        _ type: String, _ channel: StoredChannel, memberCount: Int, by actor: String?, renderer: Renderer, at now: Date, _ db: Database
    ) throws -> PendingEvent {
        let users = try UsersTable.fetch(db, ids: [channel.createdBy, actor].compactMap { $0 })
        var event = DevServerState.event(type, channel.cid, at: now)
        event["channel"] = .object(renderer.channel(channel, memberCount: memberCount, createdBy: channel.createdBy.flatMap { users[$0] }))
        if let actor { event["user"] = .object(renderer.user(id: actor, from: users)) }
        try DevServerState.log(db, event, cid: channel.cid, at: now)
        return PendingEvent(cid: channel.cid, event: event)
    }
}
