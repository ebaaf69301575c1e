import ChatModels
import Foundation
import GRDB
import Hummingbird

/// App settings, users and their custom events, `/sync`, moderation flags and mutes.
struct AppRoutes {
    let state: DevServerState

    func register(on router: Router<DevRequestContext>) {
        router.get("/app") { request, _ in
            _ = try await state.authenticate(request)
            return JSONReply(["app": .object(state.appSettings.json(name: "chatbotkit-dev"))])
        }
        router.patch("/app") { request, _ in
            try await state.requireServer(request, "UpdateApp", "app settings can only be changed")
            _ = try await state.updateSettings(try await state.jsonBody(request, operation: "UpdateApp"))
            return JSONReply()
        }
        router.post("/users") { request, _ in try await upsertUsers(request) }
        router.get("/users") { request, _ in try await queryUsers(request) }
        router.patch("/users") { request, _ in try await updateUsersPartial(request) }
        router.post("/users/:userId/event") { request, context in try await sendUserEvent(request, context) }
        router.delete("/users/:userId") { request, context in try await deleteUser(request, context) }
        router.post("/users/:userId/deactivate") { request, context in try await deactivateUser(request, context) }
        router.post("/users/:userId/reactivate") { request, context in try await reactivateUser(request, context) }
        router.post("/users/restore") { request, _ in try await restoreUsers(request) }
        router.post("/users/block") { request, _ in try await block(request) }
        router.post("/users/unblock") { request, _ in try await unblock(request) }
        router.get("/users/block") { request, _ in try await blockedUsers(request) }
        router.post("/users/delete") { request, _ in try await deleteUsers(request) }
        router.post("/users/deactivate") { request, _ in try await deactivateUsers(request) }
        router.get("/tasks/:taskId") { request, context in try await task(request, context) }
        router.post("/sync") { request, _ in try await sync(request) }
        router.post("/moderation/flag") { request, _ in try await flag(request) }
        router.post("/moderation/unflag") { request, _ in try await unflag(request) }
        router.post("/moderation/mute") { request, _ in try await mute(request) }
        router.post("/moderation/unmute") { request, _ in try await unmute(request) }
        router.post("/moderation/mute/channel") { request, _ in try await muteChannel(request) }
        router.post("/moderation/unmute/channel") { request, _ in try await unmuteChannel(request) }
        router.get("/moderation/flags/message") { request, _ in try await queryMessageFlags(request) }
        router.post("/moderation/ban") { request, _ in try await ban(request) }
        router.delete("/moderation/ban") { request, _ in try await unban(request) }
        router.get("/query_banned_users") { request, _ in try await queryBannedUsers(request) }
        router.get("/rate_limits") { request, _ in try await rateLimits(request) }
    }

    /// `POST /users` with `{"users": {"<id>": {...}}}`: creates or replaces users.
    func upsertUsers(_ request: Request) async throws -> JSONReply {
        let operation = "UpdateUsers"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        guard case .object(let users)? = body["users"] else {
            throw APIError.input(operation, "users must be an object keyed by user id")
        }
        for (key, value) in users {
            guard case .object(let fields) = value, fields["id"]?.stringValue ?? key == key, !key.isEmpty else {
                throw APIError.input(operation, "users.\(key) must be an object whose id is \(key)")
            }
            if let userId = principal.userId, userId != key {
                throw APIError.forbidden(operation, "user \(userId) may only update itself")
            }
        }
        let now = state.clock.now()
        let renderer = await state.renderer(for: request)
        let stored = try await state.store.write { db in
            try users.map { key, value in try UsersTable.upsert(db, value.objectValue ?? [:], id: key, now: now) }
        }
        return JSONReply(["users": .object(JSONObject(stored.map { ($0.id, RawJSON.object(renderer.user($0))) }))], status: .created)
    }

    /// `GET /users?payload=`: users by `id` (`"x"`, `{"$eq": "x"}` or `{"$in": [...]}`), sorted by id.
    func queryUsers(_ request: Request) async throws -> JSONReply {
        let operation = "QueryUsers"
        _ = try await state.authenticate(request)
        let payload = try state.payloadQuery(request, operation: operation)
        let filter = payload["filter_conditions"]?.objectValue ?? [:]
        var ids: [String]?
        for (key, value) in filter {
            guard key == "id" else { throw APIError.input(operation, "filter field \"\(key)\" is not supported by the dev server; use id") }
            if let id = value.stringValue {
                ids = [id]
            } else if let id = value["$eq"]?.stringValue {
                ids = [id]
            } else if let list = value["$in"]?.arrayValue {
                ids = list.compactMap(\.stringValue)
            } else {
                throw APIError.input(operation, "filter on id must be a string, {\"$eq\": ...} or {\"$in\": [...]}")
            }
        }
        let limit = min(max(payload["limit"]?.intValue ?? 30, 1), 100)
        let offset = max(payload["offset"]?.intValue ?? 0, 0)
        let renderer = await state.renderer(for: request)
        let requested = ids
        let users = try await state.store.read { db -> [StoredUser] in
            if let requested { return try UsersTable.fetch(db, ids: requested).values.sorted { $0.id < $1.id } }
            return try Row.fetchAll(db, cached: "SELECT * FROM users ORDER BY id LIMIT ? OFFSET ?", arguments: [limit, offset])
                .map(UsersTable.decode)
        }
        return JSONReply(["users": .array(users.prefix(limit).map { .object(renderer.user($0)) })])
    }

    /// `POST /sync`: the logged events of the given channels after `last_sync_at`, links re-signed.
    func sync(_ request: Request) async throws -> JSONReply {
        let operation = "Sync"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        guard case .array(let cidValues)? = body["channel_cids"] else {
            throw APIError.input(operation, "channel_cids must be an array of channel ids")
        }
        guard cidValues.count <= 255 else { throw APIError.input(operation, "at most 255 channel_cids can be synced at once") }
        guard let lastSyncText = body["last_sync_at"]?.stringValue, let lastSync = RFC3339.date(from: lastSyncText) else {
            throw APIError.input(operation, "last_sync_at must be an RFC 3339 date")
        }
        var cids: [ChannelId] = []
        for value in cidValues {
            guard let text = value.stringValue, let cid = try? ChannelId(cid: text) else {
                throw APIError.input(operation, "\(value) is not a channel id (type:id)")
            }
            cids.append(cid)
        }
        let limit = state.configuration.maximumSyncedEvents
        let requested = cids
        let renderer = await state.renderer(for: request)
        let (events, inaccessible) = try await state.store.read { db -> ([JSONObject], [String]) in
            // A server call still gets a deleted channel's events, its deletion last, so that a
            // client away at the time learns of it. (A user's membership left with the channel,
            // so for a user token it is inaccessible.)
            let allowed = try ChannelsTable.readable(db, requested, by: principal.userId)
            let accessible = requested.filter { allowed.contains($0) }
            let inaccessible = requested.filter { !allowed.contains($0) }.map(\.rawValue)
            return (try EventsTable.since(db, cids: accessible, after: lastSync, limit: limit), inaccessible)
        }
        if !inaccessible.isEmpty, body["with_inaccessible_cids"]?.flag != true {
            throw APIError.forbidden(operation, "no access to channels \(inaccessible.joined(separator: ", "))")
        }
        guard events.count <= limit else {
            throw APIError.input(operation, "more than \(limit) events to sync; query the channels again instead")
        }
        return JSONReply(
            ["events": .array(events.map { .object(renderer.resignedEvent($0)) }), "inaccessible_cids": .array(inaccessible.map(RawJSON.string))],
            status: .created)
    }

    /// `POST /moderation/flag`: records a flag on a message or a user.
    func flag(_ request: Request) async throws -> JSONReply {
        let operation = "Flag"
        let principal = try await state.authenticate(request)
        let body = try await state.jsonBody(request, operation: operation)
        let messageId = body["target_message_id"]?.stringValue
        let targetUser = body["target_user_id"]?.stringValue
        guard messageId != nil || targetUser != nil else {
            throw APIError.input(operation, "either target_message_id or target_user_id is required")
        }
        let flagger = try state.actingUser(principal, body, operation: operation)
        let now = state.clock.now()
        try await state.store.write { db in
            if let messageId {
                let message = try DevServerState.requireMessage(db, messageId, operation: operation)
                try DevServerState.requireAccess(db, message.cid, principal, operation: operation)
            }
            try db.execute(
                sql: "INSERT INTO flags (target_message_id, target_user_id, user_id, reason, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [messageId, targetUser, flagger, body["reason"]?.stringValue, StoreCoding.text(body), StoreCoding.text(now)])
        }
        var flag: JSONObject = ["user": .object(["id": .string(flagger)]), "created_at": .string(RFC3339.string(from: now))]
        if let messageId { flag["target_message_id"] = .string(messageId) }
        if let targetUser { flag["target_user"] = .object(["id": .string(targetUser)]) }
        return JSONReply(["flag": .object(flag)], status: .created)
    }

    /// The expiry `value` sets (a ban's or a mute's): nil when absent or null (for good), else
    /// `value` × `unit` after `now`, for a positive whole number.
    static func expiry(_ value: RawJSON?, field: String, unit: Duration, unitName: String, from now: Date, operation: String) throws -> Date? {
        guard let value, value != .null else { return nil }
        guard let amount = value.intValue, amount > 0 else {
            throw APIError.input(operation, "\(field) must be a positive whole number of \(unitName)")
        }
        return now.addingTimeInterval(Double(amount) * (unit / .seconds(1)))
    }
}
