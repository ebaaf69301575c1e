import ChatModels
import Foundation
import GRDB
import Hummingbird

/// Channels: get-or-create (with watching), query, membership and channel updates.
struct ChannelRoutes {
    let state: DevServerState

    func register(on router: Router<DevRequestContext>) {
        router.post("/channels/:type/:id/query") { request, context in try await query(request, context) }
        router.post("/channels") { request, context in try await queryChannels(request, try await state.jsonBody(request, operation: "QueryChannels")) }
        router.get("/channels") { request, _ in try await queryChannels(request, try state.payloadQuery(request, operation: "QueryChannels")) }
        router.post("/channels/:type/:id") { request, context in try await update(request, context) }
        router.patch("/channels/:type/:id") { request, context in try await updatePartial(request, context) }
        router.delete("/channels/:type/:id") { request, context in try await delete(request, context) }
        router.post("/channels/delete") { request, _ in try await deleteMany(request) }
        router.post("/channels/:type/:id/hide") { request, context in try await hide(request, context) }
        router.post("/channels/:type/:id/show") { request, context in try await show(request, context) }
        router.post("/channels/:type/:id/truncate") { request, context in try await truncate(request, context) }
        router.post("/channels/:type/:id/stop-watching") { request, context in try await stopWatching(request, context) }
        router.get("/members") { request, _ in try await queryMembers(request) }
        router.patch("/channels/:type/:id/member/:userId") { request, context in try await updateMemberPartial(request, context) }
    }

    /// `POST /channels/{type}/{id}/query`: creates the channel if needed (with its members), starts
    /// watching it for `connection_id`, and answers its state.
    func query(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "GetOrCreateChannel"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        let data = body["data"]?.objectValue ?? [:]
        let now = state.clock.now()
        let creator: String? = principal.userId ?? (data["created_by"]?["id"]?.stringValue ?? data["created_by_id"]?.stringValue)
        let members = try ChannelRoutes.memberEntries(data["members"], operation: operation)
        let eventRenderer = await state.renderer(for: request)
        let (created, added) = try await state.store.write { db -> (Bool, [PendingEvent]) in
            // A deleted channel created again keeps its truncation, so its old messages stay hidden.
            let existing = try ChannelsTable.fetchIncludingDeleted(db, cid)
            if existing != nil, existing?.deletedAt == nil { return (false, []) }
            guard let creator else {
                throw APIError.input(operation, "either data.created_by or data.created_by_id must be provided when using server side auth")
            }
            try UsersTable.ensure(db, creator, now: now)
            var channelData = JSONObject()
            for (key, value) in data where !["members", "created_by", "created_by_id", "id", "type", "cid", "frozen"].contains(key) {
                channelData[key] = value
            }
            try ChannelsTable.insert(
                db,
                StoredChannel(
                    cid: cid, data: channelData, createdBy: creator, createdAt: now, updatedAt: now, frozen: data["frozen"]?.boolValue == true,
                    truncatedAt: existing?.truncatedAt, truncatedSeq: existing?.truncatedSeq))
            var entries = members
            if principal.userId != nil, !entries.contains(where: { $0.userId == creator }) {
                entries.insert((creator, "channel_member", [:]), at: 0)
            }
            let added = try ChannelsTable.addMembers(db, cid, entries, now: now).map { member in
                try ChannelRoutes.memberEvent("member.added", "notification.added_to_channel", cid, member, renderer: eventRenderer, db, at: now)
            }
            return (true, added)
        }
        if created { await state.publish(added) }
        try await watchIfAsked(request, body: body, cid: cid, principal: principal, operation: operation)
        let renderer = await state.renderer(for: request)
        let watchers = await state.hub.watcherCount(cid)
        let limit = body["messages"]?["limit"]?.intValue ?? 25
        let beforeId = body["messages"]?["id_lt"]?.stringValue
        let object = try await state.store.read { db in
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            let channel = try DevServerState.requireChannel(db, cid, operation: operation)
            return try renderer.channelState(
                db, channel, viewer: principal.userId, messageLimit: min(max(limit, 0), 300), beforeId: beforeId, watcherCount: watchers)
        }
        return JSONReply(object, status: .created)
    }

    /// Starts watching when the body says `watch: true` and a `connection_id` is given.
    func watchIfAsked(_ request: Request, body: JSONObject, cid: ChannelId, principal: Principal, operation: String) async throws {
        guard body["watch"]?.flag == true, let connectionId = request.query("connection_id") else { return }
        // Access first: a query refused for a non-member must not leave its connection
        // watching, which would hand the channel's events to someone who cannot read it.
        try await state.store.read { db in try DevServerState.requireAccess(db, cid, principal, operation: operation) }
        guard await state.hub.watch(connectionId: connectionId, cid: cid, userId: principal.userId) else {
            throw ChannelRoutes.notOwnConnection(connectionId, operation: "WatchChannel")
        }
    }

    /// The refusal of a `connection_id` that is not an open connection of the calling user.
    static func notOwnConnection(_ connectionId: String, operation: String) -> APIError {
        APIError.input(operation, "connection_id \(connectionId) is not an open WebSocket connection of this user")
    }

    /// `POST /channels/{type}/{id}/stop-watching?connection_id=`: the connection no longer gets
    /// the channel's events (its members still get the `notification.*` ones).
    func stopWatching(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "StopWatchingChannel"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        guard let connectionId = request.query("connection_id"), !connectionId.isEmpty else {
            throw APIError.input(operation, "connection_id is required")
        }
        guard await state.hub.stopWatching(connectionId: connectionId, cid: cid, userId: principal.userId) else {
            throw ChannelRoutes.notOwnConnection(connectionId, operation: operation)
        }
        return JSONReply([:], status: .created)
    }

    /// `POST /channels` and `GET /channels?payload=`: channels matching `filter_conditions`, in
    /// `sort` order (latest message first by default).
    func queryChannels(_ request: Request, _ body: JSONObject) async throws -> JSONReply {
        let operation = "QueryChannels"
        let principal = try await state.authenticate(request)
        let filter = try ChannelFilter(body["filter_conditions"]?.objectValue ?? [:], operation: operation)
        let sort = try ChannelSort(body["sort"], operation: operation)
        let limit = min(max(body["limit"]?.intValue ?? 10, 1), 30)
        let offset = max(body["offset"]?.intValue ?? 0, 0)
        let messageLimit = min(max(body["message_limit"]?.intValue ?? 25, 0), 300)
        let renderer = await state.renderer(for: request)
        // For whom the channels are listed (its hidden ones left out) and rendered: the token's user,
        // or the user a server query names.
        let viewer = principal.userId ?? body["user_id"]?.stringValue
        let matches = try await state.store.read { db -> [StoredChannel] in
            try filter.channels(visibleTo: principal, viewer: viewer, sortedBy: sort, offset: offset, limit: limit, db)
        }
        // The page is what the principal may read, so the whole page is watched at once.
        if body["watch"]?.flag == true, let connectionId = request.query("connection_id"),
            !(await state.hub.watch(connectionId: connectionId, cids: matches.map(\.cid), userId: principal.userId))
        {
            throw ChannelRoutes.notOwnConnection(connectionId, operation: "WatchChannel")
        }
        let watchers = await state.hub.watcherCounts(matches.map(\.cid))
        let states = try await state.store.read { db in
            try matches.map { channel in
                RawJSON.object(
                    try renderer.channelState(
                        db, channel, viewer: viewer, messageLimit: messageLimit, watcherCount: watchers[channel.cid] ?? 0))
            }
        }
        return JSONReply(["channels": .array(states)], status: .created)
    }

    /// `POST /channels/{type}/{id}`: add or remove members, or replace the channel's data.
    func update(_ request: Request, _ context: DevRequestContext) async throws -> JSONReply {
        let operation = "UpdateChannel"
        let principal = try await state.authenticate(request)
        let cid = try state.channelId(context, operation: operation)
        let body = try await state.jsonBody(request, operation: operation)
        let requested = try ChannelRoutes.memberEntries(body["add_members"], operation: operation)
        let removing = (body["remove_members"]?.arrayValue ?? []).compactMap { $0.stringValue ?? $0["user_id"]?.stringValue }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let events = try await state.store.write { db -> [PendingEvent] in
            try DevServerState.requireAccess(db, cid, principal, operation: operation)
            var channel = try DevServerState.requireChannel(db, cid, operation: operation)
            var events: [PendingEvent] = []
            // A user who blocked the one adding is left out, as on the service.
            let adder = try? state.actingUser(principal, body, operation: operation)
            let adding = try requested.filter { entry in try adder.map { try !BlocksTable.isBlocking(db, entry.userId, $0) } ?? true }
            for member in try ChannelsTable.addMembers(db, cid, adding, now: now) {
                events.append(
                    try ChannelRoutes.memberEvent("member.added", "notification.added_to_channel", cid, member, renderer: renderer, db, at: now))
            }
            for member in try ChannelsTable.removeMembers(db, cid, removing) {
                events.append(
                    try ChannelRoutes.memberEvent(
                        "member.removed", "notification.removed_from_channel", cid, member, renderer: renderer, db, at: now))
            }
            if let data = body["data"]?.objectValue {
                try ChannelRoutes.requireManager(db, channel, principal, operation: operation)
                if let frozen = data["frozen"], frozen.boolValue == nil {
                    throw APIError.input(operation, "data.frozen must be true or false, not \(frozen.kindDescription)")
                }
                // A full update replaces the custom data; `frozen` is the channel's own flag.
                channel.data = JSONObject(
                    data.members.filter { !ChannelRoutes.reservedChannelFields.contains($0.key) && $0.key != "frozen" }.map { ($0.key, $0.value) })
                channel.frozen = data["frozen"]?.boolValue ?? false
                channel.updatedAt = now
                try ChannelsTable.update(db, channel)
                events.append(
                    try ChannelRoutes.channelEvent(
                        "channel.updated", channel, memberCount: try ChannelsTable.memberCount(db, cid), by: principal.userId,
                        renderer: renderer, at: now, db))
            }
            return events
        }
        await state.publish(events)
        // Removed members can no longer read the channel, so their connections stop watching it
        // (after the removal itself reached them).
        await state.hub.stopWatching(cid, byUsers: Set(removing))
        let object = try await state.store.read { db -> JSONObject in
            let channel = try DevServerState.requireChannel(db, cid, operation: operation)
            let members = try ChannelsTable.members(db, cid)
            let users = try UsersTable.fetch(db, ids: members.map(\.userId) + [channel.createdBy].compactMap { $0 })
            return [
                "channel": .object(renderer.channel(channel, memberCount: members.count, createdBy: channel.createdBy.flatMap { users[$0] })),
                "members": .array(members.map { .object(renderer.member($0, users: users)) }),
            ]
        }
        return JSONReply(object, status: .created)
    }

    /// Member entries from `["id", ...]` or `[{"user_id": "id", "channel_role": "..."}, ...]`.
    static func memberEntries(_ value: RawJSON?, operation: String) throws -> [(userId: String, role: String, data: JSONObject)] {
        guard let value, !value.isNull else { return [] }
        guard case .array(let elements) = value else { throw APIError.input(operation, "members must be an array of user ids or member objects") }
        return try elements.map { element in
            if let id = element.stringValue, !id.isEmpty { return (id, "channel_member", [:]) }
            guard case .object(let object) = element, let id = object["user_id"]?.stringValue ?? object["user"]?["id"]?.stringValue else {
                throw APIError.input(operation, "each member must be a user id or an object with user_id")
            }
            var data = JSONObject()
            for (key, member) in object where !["user_id", "user", "channel_role", "role"].contains(key) { data[key] = member }
            return (id, object["channel_role"]?.stringValue ?? "channel_member", data)
        }
    }

    /// A member event, logged for `/sync`, and its `notificationType` copy for the member: the
    /// member and its user rendered in full, as the service sends them (a bot greeting a new
    /// member reads the name from it).
    static func memberEvent(
        _ type: String, _ notificationType: String, _ cid: ChannelId, _ member: StoredMember, renderer: Renderer, _ db: Database, at date: Date
    ) throws -> PendingEvent {
        let users = try UsersTable.fetch(db, ids: [member.userId])
        var event = DevServerState.event(type, cid, at: date)
        event["member"] = .object(renderer.member(member, users: users))
        event["user"] = .object(renderer.user(id: member.userId, from: users))
        try DevServerState.log(db, event, cid: cid, at: date)
        var notification = event
        notification["type"] = .string(notificationType)
        notification["channel"] = .object(["id": .string(cid.id), "type": .string(cid.type.rawValue), "cid": .string(cid.rawValue)])
        return PendingEvent(cid: cid, event: event, notification: notification, notify: [member.userId])
    }
}
